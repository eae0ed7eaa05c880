"""The built-in tools as an MCP server: ``python -m workbench.tools.mcp_server``.

This is the server side of the MCP transport. It serves :data:`BUILTIN_TOOLS` (the very
functions the in-process registry runs) over stdio by default, or over Streamable HTTP at
``http://127.0.0.1:PORT/mcp`` with ``--http PORT``. The tools keep their names,
descriptions, input and output schemas and annotations exactly as the registry has them,
so a run over MCP records the same ledger as a run in-process.

Over HTTP the server is held to the bounds of :mod:`workbench.tools.mcp_http_serve`, so
slow and greedy clients (a header or body trickled a byte at a time, bodies over the cap,
sessions or connections by the thousand) cannot keep other clients waiting.

A tool's exception reaches the client as an ``isError`` result whose text is the
exception's message, the same text the in-process registry records (``str(exc)``).

Example:
    Serve over stdio (what ``MCP_ORACLE=1`` starts), or over HTTP::

        python -m workbench.tools.mcp_server
        python -m workbench.tools.mcp_server --http 8765
        workbench serve --http 8765   # the same, once cli.EXTENSIONS lists this module
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from workbench.tools.builtins import BUILTIN_TOOLS

if TYPE_CHECKING:  # the SDK costs over a second to import; only pay for it when serving
    from mcp.server import MCPServer

__all__ = ["SERVER_NAME", "build_server", "main", "register", "serve"]

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
    from workbench.tools.mcp_loop import require_mcp

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


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the built-in tools until the client goes away (stdio) or the process is stopped.

    Args:
        argv: Command-line arguments (``sys.argv[1:]`` when None).

    Returns:
        The process exit status.
    """
    parser = argparse.ArgumentParser(
        prog="python -m workbench.tools.mcp_server",
        description="Serve the workbench's built-in tools over MCP (stdio by default).",
    )
    _add_arguments(parser)
    parser.set_defaults(func=serve)
    from workbench.cli import run_parsed  # a bad bound is one line, as from `workbench serve`

    return run_parsed(parser.parse_args(argv))


def register(subparsers: Any) -> None:
    """Add ``workbench serve [--http PORT]`` to the CLI (an entry of ``cli.EXTENSIONS``)."""
    parser = subparsers.add_parser(
        "serve", help="serve the built-in tools over MCP (stdio; --http PORT for HTTP)",
        description="Serve the workbench's built-in tools over MCP (stdio by default).",
    )
    _add_arguments(parser)
    parser.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    """Run the server for parsed arguments (``http`` and ``host``); blocks until it stops.

    Over HTTP the bounds of :mod:`workbench.tools.mcp_http_serve` apply (header and body
    times, request size, sessions, connections), read from ``WORKBENCH_HTTP_*`` first so a
    bad value is refused before the SDK is loaded.

    Raises:
        ConfigError: a ``WORKBENCH_HTTP_*`` variable is not a number the bound can take.
    """
    names = ", ".join(t["name"] for t in BUILTIN_TOOLS)
    # One line on stderr per start: the client's per-connection log shows every spawn.
    if args.http is None:
        server = build_server()
        print(f"workbench mcp server pid {os.getpid()}: stdio, tools: {names}",
              file=sys.stderr, flush=True)
        server.run()
        return 0
    from workbench.tools.mcp_http_serve import HttpBounds, serve_http

    bounds = HttpBounds.from_env()

    def announce(url: str) -> None:
        print(f"workbench mcp server pid {os.getpid()}: {url}, tools: {names}",
              file=sys.stderr, flush=True)

    serve_http(build_server(), host=args.host, port=args.http, bounds=bounds, bound=announce)
    return 0


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from workbench._args import host, port

    parser.add_argument(
        "--http", type=port, metavar="PORT",
        help="serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio (1-65535)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", type=host,
        help="interface for --http (default 127.0.0.1; anything else exposes the tools)",
    )


if __name__ == "__main__":
    sys.exit(main())
