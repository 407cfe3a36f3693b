#!/usr/bin/env bash
# The action's main step: replays the cassettes around INPUT_COMMAND, scores the run with
# INPUT_SCORE_CONFIG, diffs the cassettes against the pull request's base branch, and writes what
# each said to the job summary (OUT_DIR/summary.md, kept for the comment step) and its HTML pages
# to OUT_DIR/html. It always exits 0, so that the comment and the upload still run; the status that
# decides the job goes to the step output "status" (the action's last step exits with it).
set -uo pipefail
bin="$OUT_DIR/bin/adkproxy"
summary="$OUT_DIR/summary.md"
html="$OUT_DIR/html"
mkdir -p "$html"
cd "${GITHUB_WORKSPACE:-.}"
status=0
fail() { [ "$status" -ne 0 ] || status=$1; }
verdict() { if [ "$1" -eq 0 ]; then echo "passed"; else echo "**failed** (exit $1)"; fi; }
fence() { echo '```'; cat "$1"; echo '```'; }

# The marker lets the comment step find its own comment again.
printf '<!-- adkproxy -->\n## adkproxy\n\n' > "$summary"

if [ -n "${INPUT_COMMAND:-}" ]; then
  # shellcheck disable=SC2086 # replay-args is a list of words by design
  "$bin" replay --cassettes "$INPUT_CASSETTES" ${INPUT_REPLAY_ARGS:-} -- bash -c "$INPUT_COMMAND" > "$OUT_DIR/replay.log" 2>&1
  rs=$?
  cat "$OUT_DIR/replay.log"
  fail "$rs"
  {
    echo "### Replay: $(verdict "$rs")"
    echo
    echo "\`$INPUT_COMMAND\` under \`adkproxy replay --cassettes $INPUT_CASSETTES\`."
    # adkproxy's closing block: its summary line and, on a failure, each request with its fields.
    awk '/^adkproxy: (replayed|recorded) /{found=1; buf=""} found{buf=buf $0 "\n"} END{printf "%s", buf}' \
      "$OUT_DIR/replay.log" | head -n 80 > "$OUT_DIR/replay.lines"
    [ -s "$OUT_DIR/replay.lines" ] || grep -a '^adkproxy' "$OUT_DIR/replay.log" | tail -n 20 > "$OUT_DIR/replay.lines" || true
    if [ -s "$OUT_DIR/replay.lines" ]; then echo; fence "$OUT_DIR/replay.lines"; fi
    echo
  } >> "$summary"
fi

# A config's custom metrics are code (docs/guarantees.md#the-trust-boundary), and a pull request's
# config is the stranger's: unless no-code is "false", score refuses them with --no-code. Any other
# value than true or false is a typo that must not turn code on: it fails the job, unscored.
if [ -n "${INPUT_SCORE_CONFIG:-}" ]; then
  args=(--cassettes "$INPUT_CASSETTES" --config "$INPUT_SCORE_CONFIG")
  [ -z "${INPUT_SCORE_EXPECTED:-}" ] || args+=(--expected "$INPUT_SCORE_EXPECTED")
  case "${INPUT_NO_CODE-true}" in
    true) args+=(--no-code) ;;
    false) ;;
    *) args=() ;;
  esac
  if [ ${#args[@]} -eq 0 ]; then
    msg="the input no-code is \"$INPUT_NO_CODE\"; give true (refuse the config's custom metrics) or false (run them: only for a config you trust)"
    echo "adkproxy action: $msg" >&2
    fail 64
    printf '### Score: %s\n\nNot scored: %s.\n\n' "$(verdict 64)" "$msg" >> "$summary"
  else
    "$bin" score "${args[@]}" --format markdown > "$OUT_DIR/score.md" 2> "$OUT_DIR/score.err"
    ss=$?
    cat "$OUT_DIR/score.err" >&2
    fail "$ss"
    { echo "### Score: $(verdict "$ss")"; echo; cat "$OUT_DIR/score.md"; echo; } >> "$summary"
    if [ "$ss" -ne 0 ] && [ ! -s "$OUT_DIR/score.md" ]; then fence "$OUT_DIR/score.err" >> "$summary"; fi
    if grep -q -- '--no-code: refused' "$OUT_DIR/score.err"; then
      printf '\n%s\n\n' "The config's custom metrics are code, so the action's \`no-code\` input (default \`true\`) refused them. Set \`no-code: false\` only where the config comes from a branch you trust; or remove them from the config." >> "$summary"
    fi
  fi
fi

if [ "${INPUT_DIFF_BASE:-false}" = "true" ]; then
  if [ -z "${GITHUB_BASE_REF:-}" ]; then
    printf '### Diff\n\nNot a pull request (no base branch): nothing to diff against.\n\n' >> "$summary"
  else
    base="$OUT_DIR/base"
    rm -rf "$base" && mkdir -p "$base"
    if git fetch --quiet --no-tags --depth=1 origin "$GITHUB_BASE_REF" &&
      git archive FETCH_HEAD -- "$INPUT_CASSETTES" 2>/dev/null | tar -x -C "$base"; then
      "$bin" diff --format markdown --fail-on "${INPUT_DIFF_FAIL_ON:-none}" "$base/$INPUT_CASSETTES" "$INPUT_CASSETTES" > "$OUT_DIR/diff.md" 2> "$OUT_DIR/diff.err"
      ds=$?
      "$bin" diff --format html --out "$html/diff.html" "$base/$INPUT_CASSETTES" "$INPUT_CASSETTES" 2>/dev/null || true
      fail "$ds"
      # The base folder is a temporary path: name it by its branch instead.
      md=$(cat "$OUT_DIR/diff.md")
      { echo "### Diff against \`$GITHUB_BASE_REF\`: $(verdict "$ds")"; echo; echo "${md//"$base/"/"$GITHUB_BASE_REF:"}"; echo; } >> "$summary"
      if [ "$ds" -ne 0 ] && [ ! -s "$OUT_DIR/diff.md" ]; then fence "$OUT_DIR/diff.err" >> "$summary"; fi
    else
      printf '### Diff against `%s`\n\nThe base branch has no `%s` folder: nothing to diff against.\n\n' "$GITHUB_BASE_REF" "$INPUT_CASSETTES" >> "$summary"
    fi
  fi
fi

if [ -d "$INPUT_CASSETTES" ]; then
  "$bin" ls --cassettes "$INPUT_CASSETTES" --format html > "$html/run.html" 2>/dev/null || rm -f "$html/run.html"
fi

cat "$summary" >> "$GITHUB_STEP_SUMMARY"
{ echo "status=$status"; echo "html-dir=$html"; } >> "$GITHUB_OUTPUT"
exit 0
