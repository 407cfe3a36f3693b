#!/usr/bin/env bash
# Re-records the demo cassettes. With GOOGLE_API_KEY set it records the real
# Gemini API; without one it records scripted fakes (that is how the shipped
# cassettes were made): the ADK Go agent (examples/adkgo) from
# `adkproxy fake --script examples/adkgo/script.yaml`, the genai weather
# agent (examples/weather) from the tests' scripted upstream.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/adkproxy ./cmd/adkproxy
(cd examples/adkgo && go build -o ../../bin/adkgo-agent .)
go build -o bin/weather-agent ./examples/weather
pids=()
files=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -f "${files[@]}"' EXIT
# start_fake FLAGVAR CMD...: starts a fake that writes its address to the
# file named last on its command line, and sets FLAGVAR to --upstream=URL.
start_fake() {
  local var=$1 addr
  shift
  addr=$(mktemp)
  files+=("$addr")
  "$@" "$addr" >/dev/null 2>&1 &
  pids+=($!)
  while [ ! -s "$addr" ]; do sleep 0.1; done
  printf -v "$var" -- '--upstream=http://%s' "$(cat "$addr")"
}
adkgo=() weather=()
if [ -z "${GOOGLE_API_KEY:-}" ]; then
  go build -o bin/fakegemini ./internal/testing/fakegemini/cmd/fakegemini
  start_fake adkgo ./bin/adkproxy fake --script examples/adkgo/script.yaml --listen 127.0.0.1:0 --addr-file
  start_fake weather ./bin/fakegemini -addr-file
fi
./bin/adkproxy record --cassettes examples/adkgo/cassettes "${adkgo[@]}" -- ./bin/adkgo-agent
if [ -z "${GOOGLE_API_KEY:-}" ]; then export GOOGLE_API_KEY=fake-key-for-the-scripted-upstream; fi
./bin/adkproxy record --cassettes examples/weather/cassettes "${weather[@]}" -- ./bin/weather-agent
