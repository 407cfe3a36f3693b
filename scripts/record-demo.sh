#!/usr/bin/env bash
# Re-records the demo cassettes. With GOOGLE_API_KEY set it records the real
# Gemini API; without one it records the scripted fake upstream that the
# tests use (that is how the shipped cassettes were made).
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/adkproxy ./cmd/adkproxy
go build -o bin/weather-agent ./examples/weather
upstream=()
if [ -z "${GOOGLE_API_KEY:-}" ]; then
  go build -o bin/fakegemini ./internal/testing/fakegemini/cmd/fakegemini
  addr=$(mktemp)
  ./bin/fakegemini -addr-file "$addr" 2>/dev/null &
  fake=$!
  trap 'kill $fake 2>/dev/null; rm -f "$addr"' EXIT
  while [ ! -s "$addr" ]; do sleep 0.1; done
  upstream=(--upstream "http://$(cat "$addr")")
  export GOOGLE_API_KEY=fake-key-for-the-scripted-upstream
fi
./bin/adkproxy record --cassettes examples/weather/cassettes "${upstream[@]}" -- ./bin/weather-agent
