"""The registry a run gets when none is given: the built-ins, in-process or over MCP.

The MCP environment gate decides (``MCP_SERVERS``, ``MCP_ORACLE=1``; see
:mod:`workbench.tools.mcp.env`); without it the built-in tools run in-process. Kept apart
from the built-ins themselves, which the MCP server serves, so neither imports the other's
side of the transport.

Example:
    >>> default_tool_registry({}).local_names()
    ['oracle']
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

__all__ = ["default_tool_registry"]


def default_tool_registry(env: Mapping[str, str] | None = None) -> ToolRegistry:
    """The registry a run uses by default, honouring the MCP environment gate.

    Args:
        env: Environment to read (``os.environ`` when None).

    Returns:
        A registry with the built-ins in-process, or with an MCP resolver attached
        when ``MCP_SERVERS`` or ``MCP_ORACLE=1`` is set.
    """
    env = os.environ if env is None else env
    registry = ToolRegistry()
    if env.get("MCP_SERVERS", "").strip() or env.get("MCP_ORACLE", "") == "1":
        from workbench.tools.mcp.env import mcp_resolver_from_env

        registry.attach(mcp_resolver_from_env(env))
        return registry
    return register_builtins(registry)
