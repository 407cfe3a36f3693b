"""The ADK for Python agents of the oracle test: one app per scenario."""

from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool

MODEL = "gemini-2.5-flash"


def get_weather(city: str) -> dict:
  """Returns the current weather in a city."""
  return {"city": city, "forecast": "sunny", "celsius": 18 if city == "Paris" else 25}


def get_time(city: str) -> dict:
  """Returns the local time in a city."""
  return {"city": city, "time": "14:00"}


def book_room(hotel: str, nights: int) -> dict:
  """Books a hotel room for a number of nights."""
  return {"hotel": hotel, "nights": nights, "booking": "B-1"}


def weather_agent():
  return LlmAgent(name="weather_agent", model=MODEL,
                  instruction="Answer with the weather tools.",
                  tools=[get_weather, get_time])


def team_agent():
  packing = LlmAgent(name="packing_advisor", model=MODEL,
                     description="Advises what to pack for a trip.",
                     instruction="Say what to pack.")
  return LlmAgent(name="coordinator", model=MODEL,
                  instruction="Hand packing questions to packing_advisor.",
                  tools=[get_weather], sub_agents=[packing])


def booking_agent():
  return LlmAgent(name="booking_agent", model=MODEL,
                  instruction="Book rooms when asked.",
                  tools=[FunctionTool(book_room, require_confirmation=True)])


AGENTS = {"weather": weather_agent, "team": team_agent, "booking": booking_agent}
