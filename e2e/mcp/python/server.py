# An MCP server built on the MCP Python SDK (the `mcp` package vendored
# with ADK for Python) whose answers change on every run: get_weather
# reports a temperature drawn at random and the server's start time.
#
#   server.py [--path DIR]... [--started FILE] [--http | --sse]
#
# --path DIR puts DIR on sys.path (an MCP client passes a stdio server
# only a minimal environment: no PYTHONPATH); --started FILE gets a line
# appended on every start, so a test can tell that replay started none;
# --http serves Streamable HTTP and --sse the older HTTP+SSE transport on
# a loopback port it prints as "listening PORT"; stdio otherwise.

import argparse
import random
import socket
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--path", action="append", default=[])
parser.add_argument("--started")
parser.add_argument("--http", action="store_true")
parser.add_argument("--sse", action="store_true")
args = parser.parse_args()
sys.path[:0] = args.path

from mcp.server.fastmcp import FastMCP  # noqa: E402

if args.started:
    with open(args.started, "a") as f:
        f.write(f"{time.time()}\n")
started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{random.randrange(10**6):06d}"

mcp = FastMCP("weather")


@mcp.tool()
def get_weather(city: str) -> dict:
    """Returns the current weather in a city."""
    return {"city": city, "temp_c": random.randrange(1000), "started": started}


def serve(app):
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"listening {sock.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    anyio.run(lambda: server.serve(sockets=[sock]))


if args.http:
    serve(mcp.streamable_http_app())
elif args.sse:
    serve(mcp.sse_app())
else:
    mcp.run("stdio")
