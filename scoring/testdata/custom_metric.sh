# A custom metric for adkproxy's tests, run with sh: $1 picks the behaviour.
input=$(cat)
case "$1" in
mentions_city)
  # The share of actual final responses that name Paris or Tokyo.
  actual=$(printf '%s' "$input" | sed 's/"expected_invocations".*//')
  total=0; hits=0
  for text in $(printf '%s' "$actual" | grep -o '"final_response":{"parts":\[{"text":"[^"]*' | sed 's/.*"text":"//' | tr ' ' '_'); do
    total=$((total + 1))
    case "$text" in *Paris*|*Tokyo*) hits=$((hits + 1));; esac
  done
  score=$(awk "BEGIN { print $hits / $total }")
  echo "{\"overall_score\": $score, \"per_invocation_results\": [], \"reason\": \"$hits of $total responses name a city\"}"
  ;;
echo_metric)
  printf '%s' "$input" | grep -o '"eval_metric":{[^}]*}' | head -1 >&2
  echo '{"overall_score": 0.25, "overall_eval_status": 2, "per_invocation_results": [{"score": 0.5, "eval_status": 1}, {"score": 0, "eval_status": "FAILED", "reason": "no"}]}'
  ;;
sleep)
  sleep 30
  echo '{"overall_score": 1}'
  ;;
bad_json)
  echo 'this is not JSON {'
  ;;
fail)
  echo 'something broke' >&2
  exit 3
  ;;
esac
