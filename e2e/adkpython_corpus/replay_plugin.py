"""ADK for Python's own in-process verdict on conformance cases.

Usage: python3 replay_plugin.py BASE_URL OUT_JSON CASE_DIR...

BASE_URL is an `adk api_server` started with
`--extra_plugins google.adk.cli.plugins.replay_plugin.ReplayPlugin`. Each case
runs through ADK's own ConformanceTestRunner (what `adk conformance test`
does): the ReplayPlugin answers every model and tool call from the case's
generated-recordings.yaml inside the server's process, checking each request
strictly, and ADK's own comparison judges the session. OUT_JSON gets one
{"name", "success", "error"} per case.
"""

import ast
import asyncio
import contextlib
import io
import json
import re
import sys
from pathlib import Path

from google.adk.cli.conformance.adk_web_server_client import AdkWebServerClient
from google.adk.cli.conformance.cli_test import ConformanceTestRunner
from google.adk.events.event import Event

_ENUM = re.compile(r"<\w+\.\w+: ('\w+')>")
_MISMATCH = re.compile(r"(.*?):\nrecorded: (.*)\ncurrent: (.*)\Z", re.S)


def first_difference(recorded, current, path=""):
  """The path of the first field where two plain values differ."""
  if isinstance(recorded, dict) and isinstance(current, dict):
    for k in list(recorded) + [k for k in current if k not in recorded]:
      if k not in recorded or k not in current:
        return f"{path}.{k}: {'added' if k not in recorded else 'removed'}"
      if recorded[k] != current[k]:
        return first_difference(recorded[k], current[k], f"{path}.{k}")
  if isinstance(recorded, list) and isinstance(current, list):
    for i, (a, b) in enumerate(zip(recorded, current)):
      if a != b:
        return first_difference(a, b, f"{path}[{i}]")
    if len(recorded) != len(current):
      return f"{path}: {len(recorded)} items recorded, {len(current)} sent"
  return f"{path}: changed"


def readable(error):
  """The plugin's mismatch as its first differing field; else as is."""
  m = _MISMATCH.match(error)
  if not m:
    return error
  try:
    # The plugin prints genai enums as <Type.STRING: 'STRING'>.
    recorded, current = (ast.literal_eval(_ENUM.sub(r"\1", x)) for x in (m[2], m[3]))
  except (ValueError, SyntaxError):
    return error
  return m[1] + ": first difference at " + first_difference(recorded, current).lstrip(".")


class Client(AdkWebServerClient):
  """ADK's client, reading /run_sse by event rather than by line.

  ADK 1.18's server writes a failed run's error as `data: {"error": ...}`
  with the message's newlines unescaped, which ADK's own client (reading
  line by line) cannot parse; read by event, the plugin's message survives.
  """

  async def run_agent(self, request, mode=None, test_case_dir=None, user_message_index=None):
    if mode == "replay":
      request.state_delta = dict(request.state_delta or {})
      request.state_delta["_adk_replay_config"] = {
          "dir": str(test_case_dir),
          "user_message_index": user_message_index,
      }
    async with self._get_client() as client:
      response = await client.post(
          "/run_sse", json=request.model_dump(by_alias=True, exclude_none=True)
      )
      response.raise_for_status()
    for block in response.text.split("\r\n\r\n" if "\r\n\r\n" in response.text else "\n\n"):
      if not block.startswith("data:"):
        continue
      data = block[5:].strip()
      try:
        event = json.loads(data)
      except json.JSONDecodeError:
        m = re.match(r'\{"error": "(.*)"\}\Z', data, re.S)
        raise RuntimeError(readable(m[1] if m else data)) from None
      if "error" in event and "author" not in event:
        raise RuntimeError(readable(event["error"]))
      yield Event.model_validate(event)


async def main(base_url, out, case_dirs):
  async with Client(base_url=base_url, timeout=120) as client:
    runner = ConformanceTestRunner([Path(d) for d in case_dirs], client)
    # The runner prints its progress; the verdicts go to OUT_JSON only.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
      summary = await runner.run_all_tests()
  results = [
      {
          "name": r.category + "/" + r.name,
          "success": r.success,
          "error": readable(r.error_message or ""),
      }
      for r in summary.results
  ]
  Path(out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
  asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
