"""Tests of a tiny agent step that call the Gemini API with no SDK; conftest.py
gives each test its own cassette. A real agent (ADK, google-genai) needs
nothing more: it reads GOOGLE_GEMINI_BASE_URL and the key as these do."""

import json
import os
import urllib.request

import pytest


def ask(question):
    base = os.environ.get("GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com")
    req = urllib.request.Request(
        base.rstrip("/") + "/v1beta/models/gemini-2.5-flash:generateContent",
        data=json.dumps({"contents": [{"role": "user", "parts": [{"text": question}]}]}).encode(),
        headers={"Content-Type": "application/json", "x-goog-api-key": os.environ.get("GOOGLE_API_KEY", "")},
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        answer = json.load(resp)
    return answer["candidates"][0]["content"]["parts"][0]["text"]


def test_paris():
    assert "Paris" in ask(os.environ.get("WEATHER_QUESTION", "What is the weather in Paris?"))


@pytest.mark.parametrize("city", ["Tokyo", "Lima"])
def test_city(city):
    assert city in ask(f"What is the weather in {city}?")
