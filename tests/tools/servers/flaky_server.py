"""A small MCP server that misbehaves on request, for the transport's error-kind tests.

Run as ``python tests/tools/servers/flaky_server.py [--http PORT]``. Every request it
receives is appended as one JSON line (pid, method, tool) to the file named by the
``FLAKY_LOG`` environment variable, so a test can prove what reached the server and how
many server processes served it.

Tools: ``echo`` (returns its text), ``banner`` (unstructured text), ``whoami`` (the
server's pid), ``fail`` (raises, so the client sees isError with the message),
``rpc_error`` (raises MCPError: a JSON-RPC error), ``sleep`` (for timeouts), ``die``
(exits the process mid-call), ``grow`` (adds a tool and sends tools/list_changed) and
``shrink`` (removes one and sends it too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

LOG = os.environ.get("FLAKY_LOG")


async def log_requests(ctx: Any, call_next: Any) -> Any:
    if LOG:
        params = ctx.params or {}
        entry = {"pid": os.getpid(), "method": ctx.method, "tool": params.get("name")}
        with open(LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
    return await call_next(ctx)


server = MCPServer("flaky", log_level="WARNING", middleware=[log_requests])


@server.tool(description="Return the text you sent.")
def echo(text: str) -> dict[str, Any]:
    return {"text": text}


@server.tool(description="Return the text in capitals as a plain text block.",
             structured_output=False)
def banner(text: str) -> str:
    return text.upper()


@server.tool(description="The server's process id.")
def whoami() -> dict[str, Any]:
    return {"pid": os.getpid()}


@server.tool(description="Always fails with the given message.")
def fail(message: str = "the tool failed on purpose") -> dict[str, Any]:
    raise ToolError(message)


@server.tool(description="Answers with a JSON-RPC error instead of a result.")
def rpc_error(code: int = -32042, message: str = "no such thing") -> dict[str, Any]:
    raise MCPError(code=code, message=message)


@server.tool(description="Sleep for the given seconds, then answer.")
async def sleep(seconds: float) -> dict[str, Any]:
    await asyncio.sleep(seconds)
    return {"slept": seconds}


@server.tool(description="Exit the server process in the middle of the call.")
def die() -> dict[str, Any]:
    os._exit(3)


async def _announce(ctx: Context) -> None:
    # 2026-07-28 sessions hear it on subscriptions/listen; older ones as a notification.
    await ctx.notify_tools_changed()
    try:
        await ctx.session.send_tool_list_changed()
    except Exception:  # noqa: S110 - not every protocol version has the legacy path
        pass


@server.tool(description="Add a tool with the given name and announce the change.")
async def grow(name: str, ctx: Context) -> dict[str, Any]:
    def extra(text: str = "") -> dict[str, Any]:
        return {"from": name, "text": text}

    server.add_tool(extra, name=name, description=f"A tool added at run time ({name}).")
    await _announce(ctx)
    return {"added": name}


@server.tool(description="Remove the named tool and announce the change.")
async def shrink(name: str, ctx: Context) -> dict[str, Any]:
    server.remove_tool(name)
    await _announce(ctx)
    return {"removed": name}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    if args.http is None:
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
