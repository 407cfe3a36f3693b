"""Runs a one-tool ADK for Python agent (two turns of one session) against
the Gemini API at GOOGLE_GEMINI_BASE_URL with OpenTelemetry's SDK and an
in-memory exporter, and prints the spans ADK's own tracing wrote as one
OTLP/JSON request (the JSON Protobuf Encoding: hex ids, 64-bit integers as
strings). Set ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false to see what ADK
writes without message content."""

import asyncio
import json
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

from google.adk.agents import LlmAgent  # noqa: E402  (after the provider)
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions import InMemorySessionService  # noqa: E402
from google.genai import types  # noqa: E402


def get_weather(city: str) -> dict:
    """Returns the weather in a city."""
    return {"city": city, "temp_c": 21, "sky": "sunny", "card": "4111 1111 1111 1111"}


async def main(turns):
    agent = LlmAgent(name="weather", model="gemini-2.5-flash", instruction="Answer about the weather.",
                     tools=[get_weather])
    sessions = InMemorySessionService()
    runner = Runner(app_name="weather_app", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="weather_app", user_id="ana")
    for text in turns:
        msg = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id="ana", session_id=session.id, new_message=msg):
            pass


def value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, (tuple, list)):
        return {"arrayValue": {"values": [value(e) for e in v]}}
    raise TypeError(type(v))


def otlp(spans):
    scopes = {}
    for s in spans:
        scope = s.instrumentation_scope.name if s.instrumentation_scope else ""
        out = {
            "traceId": format(s.context.trace_id, "032x"),
            "spanId": format(s.context.span_id, "016x"),
            "name": s.name,
            "kind": s.kind.value + 1,
            "startTimeUnixNano": str(s.start_time),
            "endTimeUnixNano": str(s.end_time),
            "attributes": [{"key": k, "value": value(v)} for k, v in s.attributes.items()],
            "status": {"code": s.status.status_code.value},
        }
        if s.parent is not None:
            out["parentSpanId"] = format(s.parent.span_id, "016x")
        if s.status.description:
            out["status"]["message"] = s.status.description
        scopes.setdefault(scope, []).append(out)
    return {"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "weather_app"}}]},
        "scopeSpans": [{"scope": {"name": name}, "spans": spans} for name, spans in scopes.items()],
    }]}


asyncio.run(main(json.loads(sys.argv[1])))
json.dump(otlp(exporter.get_finished_spans()), sys.stdout, ensure_ascii=False, indent=1)
