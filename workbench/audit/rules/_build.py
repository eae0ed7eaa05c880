"""Building the rules' examples: a wire tool in one call."""

from __future__ import annotations

from typing import Any

from workbench.audit.rules import Example

__all__ = ["ex", "tool"]

#: Hints an example has unless it says otherwise: a read-only tool that stays local.
_QUIET = {"readOnlyHint": True, "openWorldHint": False}


def tool(name: str, description: str, props: dict[str, Any] | None = None,
         hints: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """An MCP wire tool: ``props`` are its parameters, ``hints`` its annotations."""
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props or {}},
            "annotations": _QUIET if hints is None else hints, **extra}


def ex(name: str, description: str, props: dict[str, Any] | None = None,
       hints: dict[str, Any] | None = None, siblings: tuple[dict[str, Any], ...] = (),
       others: dict[str, list[dict[str, Any]]] | None = None, **extra: Any) -> Example:
    """An :class:`Example` of one tool (see :func:`tool`), its siblings and other servers."""
    return Example(tool(name, description, props, hints, **extra), siblings, others or {})
