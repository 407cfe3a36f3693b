"""The demo agent for ADK for Python: a trip planner with two tools and a
packing advisor it hands over to (examples/adkpython/README.md)."""

from google.adk.agents import LlmAgent

MODEL = "gemini-2.5-flash"


def get_weather(city: str) -> dict:
  """Returns the current weather in a city."""
  return {"city": city, "celsius": 21, "sky": "sunny"}


def get_local_time(city: str) -> dict:
  """Returns the local time in a city."""
  return {"city": city, "time": "14:05"}


packing_advisor = LlmAgent(
    name="packing_advisor", model=MODEL,
    description="Says what to pack for a trip, given the weather.",
    instruction="Say briefly what to pack.")

root_agent = LlmAgent(
    name="trip_planner", model=MODEL,
    instruction="Answer questions about a trip with your tools; hand packing questions to packing_advisor.",
    tools=[get_weather, get_local_time], sub_agents=[packing_advisor])
