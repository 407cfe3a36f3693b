#!/usr/bin/env bash
# make demo: replays the shipped example cassettes through a real agent (the
# official Go genai client), offline and without an API key.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/weather-agent ./examples/weather
echo "== adkproxy replay: examples/weather/cassettes (no network, no key)"
unset GOOGLE_API_KEY GEMINI_API_KEY
./bin/adkproxy replay --cassettes examples/weather/cassettes -- ./bin/weather-agent
