"""The built-in tools and the default registry, with the MCP environment gate.

The same functions back the in-process registry and ``python -m workbench.tools.mcp.server``,
so a result over MCP is byte-identical to the in-process one.

Environment gate (read by :func:`default_tool_registry`):

* neither variable set: every built-in runs in-process (the offline default);
* ``MCP_ORACLE=1``: the built-ins are served by our own MCP server over stdio;
* ``MCP_SERVERS``: ``::``-separated stdio command lines or http(s) URLs; wins over
  ``MCP_ORACLE``.

In every mode the capability check in :class:`~workbench.tools.registry.ToolRegistry` is
unchanged.
"""

from __future__ import annotations

import hashlib
from typing import Any

from workbench.tools.registry import ToolRegistry

__all__ = ["BUILTIN_TOOLS", "OMENS", "oracle", "register_builtins"]

#: The oracle's fixed list of omens; the seed picks one by hash.
OMENS: tuple[str, ...] = (
    "A heron stands still in moving water.",
    "The lantern gutters, then burns brighter.",
    "Three crows argue over a single seed.",
    "A door you closed is open again.",
    "Frost writes a name on the window.",
    "The river forgets the stone it carried.",
    "A bell rings where no bell hangs.",
    "Moss grows on the north side of the promise.",
    "The moon is late, and knows it.",
    "A stranger's shadow arrives before the stranger.",
    "Salt spilled in the shape of a road.",
    "The well answers a question no one asked.",
)


def oracle(seed: str) -> dict[str, Any]:
    """Return the omen for ``seed``: the same seed always gives the same omen.

    Example:
        >>> oracle("dawn") == oracle("dawn")
        True
    """
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    index = int.from_bytes(digest[:8], "big") % len(OMENS)
    return {"omen": OMENS[index], "index": index}


#: Everything needed to register the built-ins, shared by the registry and the MCP server.
BUILTIN_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "oracle",
        "title": "Oracle",
        "description": (
            "Read an omen for a scene. The same seed always gives the same omen, "
            "so a story can be replayed."
        ),
        "run": oracle,
        "input_schema": {
            "type": "object",
            "properties": {
                "seed": {"type": "string", "description": "The scene or question to read."}
            },
            "required": ["seed"],
            "additionalProperties": False,
        },
        "output_schema": {
            "type": "object",
            "properties": {
                "omen": {"type": "string"},
                "index": {"type": "integer"},
            },
            "required": ["omen", "index"],
        },
        "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
    },
)


def register_builtins(registry: ToolRegistry) -> ToolRegistry:
    """Register every built-in tool in-process on ``registry`` and return it."""
    for tool in BUILTIN_TOOLS:
        registry.register(**tool)
    return registry
