#!/usr/bin/env bash
# Runs every Go fuzz target in the module for the given time each (default 30s).
set -euo pipefail
time=${1:-30s}
cd "$(dirname "$0")/.."
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "== $pkg $target ($time)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg"
  done
done
