#!/usr/bin/env bash
# make demo: replays the shipped cassettes of the ADK Go demo agent
# (examples/adkgo: an LlmAgent with two function tools and a sub-agent it
# transfers to), offline and without an API key, then scores the recorded
# run against a hand-written ADK eval set.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd examples/adkgo && go build -o ../../bin/adkgo-agent .)
echo "== adkproxy replay: examples/adkgo/cassettes (no network, no key)"
# ADK Go's gemini.NewModel refuses to start without a key: any value will
# do, and replay never sends it anywhere.
unset GEMINI_API_KEY
export GOOGLE_API_KEY=no-key-needed-for-replay
./bin/adkproxy replay --cassettes examples/adkgo/cassettes -- ./bin/adkgo-agent
echo
echo "== adkproxy ls: the cassette as sessions, invocations and steps"
./bin/adkproxy ls --cassettes examples/adkgo/cassettes
echo
echo "== adkproxy score: the recorded run against examples/adkgo/trip.evalset.json"
./bin/adkproxy score --cassettes examples/adkgo/cassettes \
  --expected examples/adkgo/trip.evalset.json --config examples/adkgo/eval_config.json
