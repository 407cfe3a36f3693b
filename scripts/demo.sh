#!/usr/bin/env bash
# make demo: replays the shipped example cassettes through a real agent (the
# official Go genai client), offline and without an API key, then scores the
# recorded run against a hand-written ADK eval set.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/weather-agent ./examples/weather
echo "== adkproxy replay: examples/weather/cassettes (no network, no key)"
# No real key: any value satisfies the SDK, and replay never sends it anywhere.
unset GEMINI_API_KEY
export GOOGLE_API_KEY=no-key-needed-for-replay
./bin/adkproxy replay --cassettes examples/weather/cassettes -- ./bin/weather-agent
echo
echo "== adkproxy score: the recorded run against examples/weather/weather.evalset.json"
./bin/adkproxy score --cassettes examples/weather/cassettes \
  --expected examples/weather/weather.evalset.json --config examples/weather/eval_config.json
