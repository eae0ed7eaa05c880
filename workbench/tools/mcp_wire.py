"""Pure translations between the MCP wire and the workbench: specs, results, names, errors.

No I/O and no SDK import here: these helpers turn what a server sent (tool listings,
content blocks, exceptions) into the registry's :class:`~workbench.tools.registry.ToolSpec`,
plain JSON and one-line messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from workbench.tools.registry import ToolSpec

__all__ = ["block_dict", "derive_name", "describe", "error_text", "spec_from_wire"]

# Path parts that say nothing about which server a command starts.
_GENERIC_PARTS = {"index", "main", "__main__", "dist", "build", "lib", "src", "bin", "server"}
_INTERPRETERS = {"python", "python3", "node", "npx", "uvx", "uv", "deno", "bun", "pipx"}


def derive_name(url: str | None, argv: list[str]) -> str:
    """A short server name from a URL's host or the command line's most telling part."""
    if url is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        return parts.netloc.rsplit("@", 1)[-1] or "http"
    args = list(argv)
    head = Path(args[0]).name
    if re.sub(r"[\d.]+$", "", head) in _INTERPRETERS and len(args) > 1:
        rest = [a for a in args[1:] if not a.startswith("-") or a == "-m"]
        if rest and rest[0] == "-m" and len(rest) > 1:
            return rest[1]
        args = rest or args
    for part in reversed(Path(args[0]).parts):
        stem = Path(part).stem
        if stem and stem.lower() not in _GENERIC_PARTS and stem not in ("/", "."):
            return stem
    return head


def spec_from_wire(wire: Mapping[str, Any]) -> ToolSpec:
    """A :class:`ToolSpec` (no ``run``) from a ``tools/list`` entry in wire form."""
    return ToolSpec(
        name=wire["name"],
        description=wire.get("description") or "",
        title=wire.get("title"),
        input_schema=wire.get("inputSchema"),
        output_schema=wire.get("outputSchema"),
        annotations=wire.get("annotations"),
    )


def block_dict(block: Any) -> dict[str, Any]:
    """A content block as a plain JSON dict (camelCase keys)."""
    return block.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_text(content: Iterable[Any]) -> str:
    """The text of an ``isError`` result's content (JSON of the blocks when none is text)."""
    blocks = list(content)
    texts = [b.text for b in blocks if getattr(b, "type", None) == "text"]
    if texts:
        return "\n".join(texts)
    return json.dumps([block_dict(b) for b in blocks]) if blocks else "the tool reported an error"


def describe(exc: BaseException) -> str:
    """``Type: message`` of an exception, unwrapped from single-member exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]  # anyio wraps a transport's failure in task groups
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
