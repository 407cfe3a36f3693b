import asyncio

import pytest

from agent import ask

WEATHER = "What is the weather in Lisbon?"


def test_weather():
    assert "sunny" in asyncio.run(ask(WEATHER))


def test_weather_then_time():
    assert "14:05" in asyncio.run(ask(WEATHER, "What time is it in Lisbon?"))


@pytest.mark.adkproxy(cassette="shared/lisbon")
def test_named_cassette():
    assert "Lisbon" in asyncio.run(ask(WEATHER))
