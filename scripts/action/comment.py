#!/usr/bin/env python3
"""The action's comment step: writes OUT_DIR/summary.md as one pull-request comment, updating
adkproxy's earlier comment (found by its marker) instead of adding another. It uses the REST API
at GITHUB_API_URL with GITHUB_TOKEN, for the pull request of GITHUB_EVENT_PATH."""

import json
import os
import sys
import urllib.request

MARKER = "<!-- adkproxy -->"
LIMIT = 65000  # GitHub refuses comment bodies over 65,536 characters


def call(method, url, body=None):
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", "Bearer " + os.environ["GITHUB_TOKEN"])
    req.add_header("Accept", "application/vnd.github+json")
    req.add_header("X-GitHub-Api-Version", "2022-11-28")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


def main():
    event = json.load(open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8"))
    pr = (event.get("pull_request") or {}).get("number")
    if not pr:
        print("adkproxy: not a pull request event: no comment written")
        return 0
    body = open(os.path.join(os.environ["OUT_DIR"], "summary.md"), encoding="utf-8").read()
    if len(body) > LIMIT:
        body = body[:LIMIT] + "\n\n… cut: the whole summary is on the job's summary page.\n"
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    issues = f"{api}/repos/{os.environ['GITHUB_REPOSITORY']}/issues"
    page, ours = 1, None
    while ours is None:
        comments = call("GET", f"{issues}/{pr}/comments?per_page=100&page={page}")
        ours = next((c for c in comments if MARKER in (c.get("body") or "")), None)
        if len(comments) < 100:
            break
        page += 1
    if ours:
        call("PATCH", f"{issues}/comments/{ours['id']}", {"body": body})
        print(f"adkproxy: updated comment {ours['id']} on pull request #{pr}")
    else:
        made = call("POST", f"{issues}/{pr}/comments", {"body": body})
        print(f"adkproxy: commented on pull request #{pr} ({made.get('id')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
