"""The client side of the MCP transport, re-exported in one place.

The pieces live one concept per module: :mod:`~workbench.tools.mcp.connection` (one
persistent session, on :mod:`~workbench.tools.mcp.loop`'s background loop),
:mod:`~workbench.tools.mcp.resolver` (several connections behind a registry) and
:mod:`~workbench.tools.mcp.env` (``MCP_SERVERS`` / ``MCP_ORACLE`` and scenario servers).
Notebooks and scripts import them from here.

Example:
    >>> from workbench.tools.mcp import MCPConnection
    >>> with MCPConnection("python -m workbench.tools.mcp.server") as conn:  # doctest: +SKIP
    ...     conn.call_tool("oracle", {"seed": "dawn"})
    {'omen': '...', 'index': ...}
"""

from __future__ import annotations

from workbench.tools.mcp.connection import MCPConnection
from workbench.tools.mcp.env import (
    mcp_resolver_from_env,
    oracle_server_command,
    resolver_for_servers,
    split_servers,
)
from workbench.tools.mcp.resolver import MCPResolver
from workbench.tools.mcp.settings import default_log_dir

__all__ = [
    "MCPConnection",
    "MCPResolver",
    "default_log_dir",
    "mcp_resolver_from_env",
    "oracle_server_command",
    "resolver_for_servers",
    "split_servers",
]
