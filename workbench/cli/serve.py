"""``workbench serve [--http PORT] [--host HOST]``: the built-in tools as an MCP server.

Stdio by default (what ``MCP_ORACLE=1`` starts as ``python -m workbench.tools.mcp.server``),
Streamable HTTP at ``http://127.0.0.1:PORT/mcp`` with ``--http PORT``, held to the bounds
of :mod:`workbench.tools.mcp.http_server`.
"""

from __future__ import annotations

import argparse
from typing import Any

from workbench.cli.args import host, port

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``workbench serve [--http PORT]``."""
    parser = subparsers.add_parser(
        "serve", help="serve the built-in tools over MCP (stdio; --http PORT for HTTP)",
        description="Serve the workbench's built-in tools over MCP (stdio by default).",
    )
    parser.add_argument(
        "--http", type=port, metavar="PORT",
        help="serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio (1-65535)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", type=host,
        help="interface for --http (default 127.0.0.1; anything else exposes the tools)",
    )
    parser.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    from workbench.tools.mcp import server as mcp_server

    if args.http is None:
        mcp_server.serve_stdio()
    else:
        mcp_server.serve_http(args.http, args.host)
    return 0
