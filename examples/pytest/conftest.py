"""One adkproxy cassette per pytest test, with no change to the code under test.

Copy this file next to your tests (or into your conftest.py). Before each test
it asks adkproxy to send the requests that name no cassette to one named after
the test -- "<test file without .py>/<test name>", e.g.
"test_weather/test_paris" -- and puts the previous cassette back afterwards:

    adkproxy record --cassettes cassettes -- pytest      # once, with a key
    adkproxy replay --cassettes cassettes -- pytest      # then offline

It talks to the control API (PUT /_adkproxy/cassette) at ADKPROXY_URL, which
adkproxy sets for the command it wraps; set it yourself for a sidecar, with
ADKPROXY_CONTROL_TOKEN when the proxy runs with --control-token. Without
ADKPROXY_URL the fixture does nothing, so the tests also run against the API.
Tests that run in parallel (pytest-xdist) share one default cassette: give
each worker its own proxy, or send the X-Adkproxy-Cassette header instead.
"""

import json
import os
import urllib.error
import urllib.request

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))


def cassette_name(node):
    """The cassette of a test: its file (relative to this conftest, no .py) and its name."""
    path = os.path.relpath(str(node.path), _HERE)
    module = os.path.splitext(path)[0].replace(os.sep, "/")
    test = node.nodeid.split("::", 1)[1].replace("::", "/")
    return f"{module}/{test}"


def use_cassette(name):
    """Send requests that name no cassette to `name`; returns the previous one."""
    base = os.environ["ADKPROXY_URL"].rstrip("/")
    req = urllib.request.Request(
        base + "/_adkproxy/cassette",
        data=json.dumps({"name": name}).encode(),
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    token = os.environ.get("ADKPROXY_CONTROL_TOKEN")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)["previous"]
    except urllib.error.HTTPError as err:
        # adkproxy explains what is wrong (a bad name, a missing token).
        raise RuntimeError(f"adkproxy refused cassette {name!r}: {err.read().decode()}") from None


@pytest.fixture(autouse=True)
def adkproxy_cassette(request):
    """Selects the test's own cassette for the duration of the test."""
    if not os.environ.get("ADKPROXY_URL"):
        yield None
        return
    name = cassette_name(request.node)
    previous = use_cassette(name)
    yield name
    use_cassette(previous)
