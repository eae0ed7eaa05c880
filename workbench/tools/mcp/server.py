"""The built-in tools as an MCP server: ``python -m workbench.tools.mcp.server``.

This is the server side of the MCP transport. It serves :data:`BUILTIN_TOOLS` (the very
functions the in-process registry runs) over stdio by default, or over Streamable HTTP at
``http://127.0.0.1:PORT/mcp`` (``workbench serve --http PORT``, :mod:`workbench.cli.serve`).
The tools keep their names, descriptions, input and output schemas and annotations exactly
as the registry has them,
so a run over MCP records the same ledger as a run in-process.

Over HTTP the server is held to the bounds of :mod:`workbench.tools.mcp.http_server`, so
slow and greedy clients (a header or body trickled a byte at a time, bodies over the cap,
sessions or connections by the thousand) cannot keep other clients waiting.

A tool's exception reaches the client as an ``isError`` result whose text is the
exception's message, the same text the in-process registry records (``str(exc)``).

Example:
    Serve over stdio (what ``MCP_ORACLE=1`` starts, the one command trusted as our own),
    or over HTTP::

        python -m workbench.tools.mcp.server
        workbench serve --http 8765          # or: python -m workbench.cli serve --http 8765
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from workbench.tools.builtins import BUILTIN_TOOLS

if TYPE_CHECKING:  # the SDK costs over a second to import; only pay for it when serving
    from mcp.server import MCPServer

__all__ = ["SERVER_NAME", "build_server", "serve_http", "serve_stdio"]

#: The name the server reports in its handshake.
SERVER_NAME = "workbench"

#: MCP annotation keys (wire, camelCase) -> the SDK's field names.
_ANNOTATION_FIELDS = {
    "title": "title",
    "readOnlyHint": "read_only_hint",
    "destructiveHint": "destructive_hint",
    "idempotentHint": "idempotent_hint",
    "openWorldHint": "open_world_hint",
}


def build_server(
    tools: Iterable[Mapping[str, Any]] = BUILTIN_TOOLS, *, name: str = SERVER_NAME
) -> MCPServer:
    """An :class:`mcp.server.MCPServer` serving ``tools`` as the registry describes them.

    Args:
        tools: Tool definitions in the form of :data:`BUILTIN_TOOLS` (``name``,
            ``description``, ``run`` and optionally ``title``, ``input_schema``,
            ``output_schema``, ``annotations``).
        name: The server name reported to clients.

    Returns:
        The server, not yet running.
    """
    from workbench.tools.mcp.loop import require_mcp

    require_mcp()  # at once, with the install hint, before the SDK's ImportError
    from mcp.server import MCPServer

    # WARNING: MCPServer configures logging in its process; INFO would chat on stderr
    # about every call, and that stderr lands in the client's per-connection log.
    return MCPServer(name, log_level="WARNING", tools=[_mcp_tool(t) for t in tools])


def _mcp_tool(tool: Mapping[str, Any]) -> Any:
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    annotations = None
    if tool.get("annotations"):
        fields = {
            _ANNOTATION_FIELDS[key]: value
            for key, value in tool["annotations"].items()
            if key in _ANNOTATION_FIELDS
        }
        annotations = ToolAnnotations(**fields)
    spec = Tool.from_function(
        _as_call_result(tool["run"]),
        name=tool["name"],
        title=tool.get("title"),
        description=tool["description"],
        annotations=annotations,
        # The wrapper builds the result itself; the SDK must not derive an output model
        # from the function's return annotation (a bare ``dict`` cannot be one).
        structured_output=False,
    )
    # The SDK derives the input schema from the signature (pydantic titles and all);
    # advertise the registry's own schemas, so validation is the same on both transports.
    if tool.get("input_schema") is not None:
        spec.parameters = dict(tool["input_schema"])
    if tool.get("output_schema") is not None:
        spec.fn_metadata.output_schema = dict(tool["output_schema"])
    return spec


def _as_call_result(run: Callable[..., dict[str, Any]]) -> Callable[..., Any]:
    """Wrap ``run`` so it answers with a ``CallToolResult``, as the registry would record it.

    A result becomes ``structuredContent`` (plus the same JSON as text, for clients that
    read only content). An exception becomes an ``isError`` result carrying its message:
    the SDK would hide the text of an unexpected exception, but the in-process registry
    records ``str(exc)``, and both transports must record the same thing.
    """

    @functools.wraps(run)  # the signature (followed via __wrapped__) builds the arg model
    def call(**params: Any) -> Any:
        from mcp.types import CallToolResult, TextContent

        try:
            result = run(**params)
        except Exception as exc:
            text = str(exc) or type(exc).__name__
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        if not isinstance(result, dict):
            text = f"returned {type(result).__name__}; a tool must return a JSON object (dict)"
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        text = json.dumps(result, indent=2, ensure_ascii=False)
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=result)

    return call


def serve_stdio() -> None:
    """Serve the built-in tools over stdio until the client goes away."""
    server = build_server()
    # One line on stderr per start: the client's per-connection log shows every spawn.
    print(f"workbench mcp server pid {os.getpid()}: stdio, tools: {_names()}",
          file=sys.stderr, flush=True)
    server.run()


def serve_http(port: int, host: str = "127.0.0.1") -> None:
    """Serve the built-in tools over Streamable HTTP at ``http://HOST:PORT/mcp``.

    The bounds of :mod:`workbench.tools.mcp.http_server` apply (header and body times,
    request size, sessions, connections), read from ``WORKBENCH_HTTP_*`` first so a bad
    value is refused before the SDK is loaded.

    Raises:
        ConfigError: a ``WORKBENCH_HTTP_*`` variable is not a number the bound can take.
    """
    from workbench.tools.mcp import http_server as mcp_http_serve

    bounds = mcp_http_serve.HttpBounds.from_env()

    def announce(url: str) -> None:
        print(f"workbench mcp server pid {os.getpid()}: {url}, tools: {_names()}",
              file=sys.stderr, flush=True)

    mcp_http_serve.serve_http(build_server(), host=host, port=port, bounds=bounds,
                              bound=announce)


def _names() -> str:
    return ", ".join(t["name"] for t in BUILTIN_TOOLS)


if __name__ == "__main__":
    # The trusted built-in server is exactly this module with no arguments (see
    # workbench.tools.mcp.env); every other way to serve goes through `workbench serve`.
    if sys.argv[1:]:
        print("error: python -m workbench.tools.mcp.server takes no arguments (it serves "
              "stdio); for HTTP run `workbench serve --http PORT`", file=sys.stderr)
        sys.exit(2)
    serve_stdio()
