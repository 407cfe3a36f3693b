#!/usr/bin/env bash
# The action's first step: builds adkproxy from the action's own checkout (ACTION_PATH) into
# OUT_DIR/bin and puts it on the job's PATH, so the version is the one the workflow pinned.
set -euo pipefail
mkdir -p "$OUT_DIR/bin"
(cd "$ACTION_PATH" && go build -trimpath -o "$OUT_DIR/bin/adkproxy" ./cmd/adkproxy)
echo "$OUT_DIR/bin" >> "$GITHUB_PATH"
"$OUT_DIR/bin/adkproxy" --version
