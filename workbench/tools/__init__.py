"""Tools: the registry (the capability boundary), the built-in tools, and the MCP transport.

:class:`~workbench.tools.registry.ToolRegistry` checks every call against the caller's
grants before anything else; :mod:`workbench.tools.builtins` are the in-process tools
(the deterministic ``oracle``); :mod:`workbench.tools.mcp` is the MCP client (one
persistent session per server), the built-in server and the transports. Import the MCP
side from there: this package stays light (no ``mcp`` import).
"""

from workbench.tools.builtins import BUILTIN_TOOLS, register_builtins
from workbench.tools.defaults import default_tool_registry
from workbench.tools.registry import Guard, ToolRegistry, ToolResolver, ToolSpec, compile_schema

__all__ = [
    "BUILTIN_TOOLS",
    "Guard",
    "ToolRegistry",
    "ToolResolver",
    "ToolSpec",
    "compile_schema",
    "default_tool_registry",
    "register_builtins",
]
