#!/usr/bin/env bash
# Re-records every shipped example cassette. With GOOGLE_API_KEY set it
# records the real Gemini API; without one it records scripted fakes on
# this machine (that is how the shipped cassettes were made, so their
# provenance says "upstream local"):
#   examples/adkgo      the ADK Go agent, from `adkproxy fake --script examples/adkgo/script.yaml`
#   examples/adkpython  the ADK Python agent, from `adkproxy fake --script examples/adkpython/script.yaml`
#                       (python3 with ADK for Python 1.18 on ADK_PYTHONPATH, default ../shared/vendor/adk-python)
#   examples/weather    the genai weather agent, from the tests' scripted upstream (fakegemini)
#   examples/compose    the node:test suite in examples/node, one cassette per test, from fakegemini
# Every cassette records its provenance (when, which adkproxy, the upstream's
# kind, the clients and frameworks, the models); `adkproxy ls` shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
adk_pythonpath=${ADK_PYTHONPATH:-$root/../shared/vendor/adk-python}
for tool in python3 node; do
  command -v "$tool" >/dev/null || { echo "record-demo.sh: $tool is needed to record the examples" >&2; exit 1; }
done
[ -d "$adk_pythonpath/google/adk" ] || { echo "record-demo.sh: no ADK for Python in $adk_pythonpath (set ADK_PYTHONPATH)" >&2; exit 1; }
# The provenance's adkproxy version names the checkout's revision, as the
# container image's does (Dockerfile).
go build -ldflags "-X main.version=$(git describe --tags --always --dirty 2>/dev/null)" -o bin/adkproxy ./cmd/adkproxy
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
adkgo=() adkpython=() weather=() compose=()
if [ -z "${GOOGLE_API_KEY:-}" ]; then
  go build -o bin/fakegemini ./internal/testing/fakegemini/cmd/fakegemini
  start_fake adkgo ./bin/adkproxy fake --script examples/adkgo/script.yaml --listen 127.0.0.1:0 --addr-file
  start_fake adkpython ./bin/adkproxy fake --script examples/adkpython/script.yaml --listen 127.0.0.1:0 --addr-file
  start_fake weather ./bin/fakegemini -addr-file
  compose=("$weather")
fi
./bin/adkproxy record --cassettes examples/adkgo/cassettes "${adkgo[@]}" -- ./bin/adkgo-agent
(cd examples/adkpython && PYTHONPATH="$adk_pythonpath:." PYTHONDONTWRITEBYTECODE=1 \
  ../../bin/adkproxy record --cassettes cassettes "${adkpython[@]}" -- python3 main.py)
# The genai client refuses to start without a key; a fake one never leaves
# this machine, and no key reaches a cassette.
if [ -z "${GOOGLE_API_KEY:-}" ]; then export GOOGLE_API_KEY=fake-key-for-the-scripted-upstream; fi
./bin/adkproxy record --cassettes examples/weather/cassettes "${weather[@]}" -- ./bin/weather-agent
(cd examples/node && ../../bin/adkproxy record --cassettes ../compose/cassettes "${compose[@]}" -- node --test weather.test.mjs)
if grep -rlF -- "$GOOGLE_API_KEY" examples/*/cassettes; then
  echo "record-demo.sh: the key reached the cassettes above" >&2
  exit 1
fi
