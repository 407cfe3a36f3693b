"""Runs the trip planner for two user turns and prints what each agent did.

PYTHONPATH=../../../shared/vendor/adk-python:. python3 main.py
(under adkproxy record or replay, which set GOOGLE_GEMINI_BASE_URL)."""

import asyncio

from google.adk.runners import InMemoryRunner
from google.genai import types

from agent import root_agent

TURNS = ["What is the weather and the local time in Lisbon?", "What should I pack for it?"]


async def main():
  runner = InMemoryRunner(agent=root_agent, app_name="trip")
  session = await runner.session_service.create_session(app_name="trip", user_id="me")
  for text in TURNS:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id="me", session_id=session.id, new_message=message):
      for call in event.get_function_calls():
        print(f"{event.author} calls {call.name}({dict(sorted(call.args.items()))})")
      if event.content and event.content.parts and event.content.parts[0].text:
        print(f"{event.author}: {event.content.parts[0].text}")


if __name__ == "__main__":
  asyncio.run(main())
