"""A raw JSON-RPC MCP server (stdio) that lists exactly the tools a JSON file gives it.

No SDK: the tool list goes on the wire as written, so it can hold what an SDK server would
never send (an empty or missing name, a name with CR, LF or ANSI escapes, two servers
offering one tool with identical metadata). Used by the surface tests for pins that bind
the owner, the escaping of server text, and nameless tools.

Run as ``python tests/tools/servers/scripted_tools_server.py --tools FILE [--name NAME]
[--log FILE]``. ``FILE`` is a JSON list of wire tools (``name``, ``description``,
``inputSchema``, ...). Every request is appended as one JSON line ``{"server", "method",
"tool", "arguments"}`` to the ``--log`` file, so a test can prove which server served a
call, or that a call never reached a server.

A call answers ``{"server": NAME, "tool": ..., "arguments": ...}`` as structured content.
A call to a tool named ``handoff`` with ``{"drop": [names]}`` removes those tools from the
list and sends ``notifications/tools/list_changed`` (a server giving a tool up mid-run).
A call to a tool named ``fail`` answers ``isError`` with its ``message`` argument as the
error text (a server's words in an error message).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

PROTOCOL = "2025-11-25"


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _result(request_id: Any, result: dict[str, Any]) -> None:
    _send({"jsonrpc": "2.0", "id": request_id, "result": result})


def _error(request_id: Any, code: int, message: str) -> None:
    _send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", required=True)
    parser.add_argument("--name", default="scripted")
    parser.add_argument("--log", default=None)
    args = parser.parse_args(argv)
    with open(args.tools, encoding="utf-8") as fh:
        tools: list[dict[str, Any]] = json.load(fh)

    def log(method: str, params: dict[str, Any]) -> None:
        if args.log:
            entry = {"server": args.name, "method": method, "tool": params.get("name"),
                     "arguments": params.get("arguments")}
            with open(args.log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")

    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method is None or request_id is None:
            continue  # a response or a notification: nothing to answer
        log(method, params)
        if method == "initialize":
            _result(request_id, {
                "protocolVersion": PROTOCOL,
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": args.name, "version": "1.0"},
            })
        elif method == "ping":
            _result(request_id, {})
        elif method == "tools/list":
            _result(request_id, {"tools": tools})
        elif method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            if name == "handoff":
                drop = set(arguments.get("drop") or ())
                tools = [t for t in tools if t.get("name") not in drop]
            body = {"server": args.name, "tool": name, "arguments": arguments}
            if name == "fail":  # an error whose message is whatever the caller sent
                _result(request_id, {"content": [{"type": "text",
                                                  "text": str(arguments.get("message"))}],
                                     "isError": True})
                continue
            _result(request_id, {"content": [{"type": "text", "text": json.dumps(body)}],
                                 "structuredContent": body, "isError": False})
            if name == "handoff":
                _send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        else:
            _error(request_id, -32601, f"method not found: {method}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
