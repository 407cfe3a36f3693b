"""A small ADK for Python agent with two tools: the code under test of e2e's pytest plugin test."""

from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types


def get_weather(city: str) -> dict:
    """Returns the current weather in a city."""
    return {"city": city, "temp_c": 21, "sky": "sunny"}


def get_local_time(city: str) -> dict:
    """Returns the local time in a city."""
    return {"city": city, "time": "14:05"}


root_agent = LlmAgent(
    name="travel_helper",
    model="gemini-2.5-flash",
    instruction="Answer travel questions with the tools.",
    tools=[get_weather, get_local_time],
)


async def ask(*turns: str) -> str:
    """Runs the user turns in a new session and returns the last final answer's text."""
    runner = InMemoryRunner(agent=root_agent, app_name="travel")
    session = await runner.session_service.create_session(app_name="travel", user_id="u")
    answer = ""
    for text in turns:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content and event.content.parts:
                answer = "".join(p.text or "" for p in event.content.parts)
    return answer
