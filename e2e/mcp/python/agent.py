# An agent on ADK for Python whose get_weather tool comes from an MCP
# server through MCPToolset: over stdio (MCP_STDIO_COMMAND, a JSON array:
# the server's command, prefixed with `adkproxy mcp --`), Streamable HTTP
# (MCP_URL) or HTTP+SSE (MCP_SSE_URL), the HTTP ones reached through
# HTTP_PROXY (httpx reads it). It asks one question and prints, as one JSON
# object, the tool results the agent got and its final text. The model is
# reached only through GOOGLE_GEMINI_BASE_URL, which adkproxy sets; the MCP
# client passes the stdio server a minimal environment (no ADKPROXY_URL).

import asyncio
import json
import os

from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import (McpToolset, SseConnectionParams, StdioConnectionParams,
                                       StreamableHTTPConnectionParams)
from google.genai import types
from mcp import StdioServerParameters


def connection():
    if os.environ.get("MCP_URL"):
        return StreamableHTTPConnectionParams(url=os.environ["MCP_URL"], timeout=30)
    if os.environ.get("MCP_SSE_URL"):
        return SseConnectionParams(url=os.environ["MCP_SSE_URL"], timeout=30)
    command, *args = json.loads(os.environ["MCP_STDIO_COMMAND"])
    return StdioConnectionParams(server_params=StdioServerParameters(command=command, args=args), timeout=30)


def changed_city(tool, args, tool_context):
    # CITY, when set, replaces the city the model asked about: the agent's
    # code changed since the recording, and so does the tool's argument.
    if os.environ.get("CITY"):
        args["city"] = os.environ["CITY"]
    return None


async def main():
    toolset = McpToolset(connection_params=connection())
    agent = LlmAgent(name="weather_agent", model="gemini-2.5-flash",
                     instruction="Answer weather questions with the get_weather tool.",
                     tools=[toolset], before_tool_callback=changed_city)
    runner = InMemoryRunner(agent=agent, app_name="mcp_e2e")
    session = await runner.session_service.create_session(app_name="mcp_e2e", user_id="u")
    out = {"tool_results": [], "text": ""}
    question = os.environ.get("QUESTION", "What is the weather in Paris?")
    async for event in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.Content(role="user", parts=[types.Part(text=question)])):
        for part in (event.content.parts if event.content else None) or []:
            if part.function_response:
                out["tool_results"].append(part.function_response.response)
            if part.text and not part.thought:
                out["text"] += part.text
    await toolset.close()
    print(json.dumps(out))


asyncio.run(main())
