r"""The MCP tool-name rule: which names a tool, a grant and a curated entry may have.

A contract, so it sits below everything that applies it: manifests check grants with it,
the registry checks registrations, a surface checks its entries, the audit flags a
server's names that break it.

Example:
    >>> check_tool_name("get_current_time")
    'get_current_time'
    >>> bool(TOOL_NAME_RE.fullmatch("oracle\n"))
    False
"""

from __future__ import annotations

import re

from workbench.errors import ToolNameError

__all__ = ["TOOL_NAME_RE", "TOOL_NAME_RULE", "check_tool_name"]

#: The MCP tool-name rule. ``\Z``, not ``$``: ``$`` also matches before a final newline, so
#: ``"oracle\n"`` would pass as a name and as a grant. Use it with ``fullmatch`` or ``match``.
TOOL_NAME_RE = re.compile(r"\A[A-Za-z0-9_.-]{1,128}\Z")
#: The rule in words, for error messages.
TOOL_NAME_RULE = "1 to 128 characters from A-Z a-z 0-9 _ . -"


def check_tool_name(name: object) -> str:
    """Return ``name`` if it follows the MCP naming rule, else raise :class:`ToolNameError`."""
    if not isinstance(name, str) or not TOOL_NAME_RE.fullmatch(name):
        raise ToolNameError(f"{name!r} is not a valid tool name; allowed: {TOOL_NAME_RULE}")
    return name
