"""Import: snapshot a live MCP server's ``tools/list`` into a surface directory, pinned.

``import_surface(target, out)`` starts the server (a stdio command line or an http(s)
URL) through :class:`~workbench.tools.mcp_client.MCPConnection`, reads its tools and
writes ``tools.json`` (the server's own text, ready to curate), ``pins.json`` (a
fingerprint and the wire form of every tool) and, if there is none, a ``policy.json``
with capability ``mcp-tool``. The session is short-lived on purpose: an import is a
snapshot, not a run.

Some servers add tools a moment after connecting and announce them with
``tools/list_changed`` (server-everything does); ``settle`` waits that long for such
announcements before the snapshot is taken.

Example:
    >>> import_surface(".venv/bin/mcp-server-time", "config/surfaces/time")  # doctest: +SKIP
    {'dir': 'config/surfaces/time', 'server': 'mcp-server-time', 'tools': [...], ...}
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, ToolCallError
from workbench.surface.artifact import (
    POLICY_FILE,
    entry_from_wire,
    is_empty,
    save_pins,
    save_policy,
    save_tools,
)
from workbench.surface.pins import pin

__all__ = ["fetch_tools", "import_surface"]


def fetch_tools(target: str | Sequence[str], *, name: str | None = None, settle: float = 0.0,
                timeout: float = 30.0) -> tuple[str, list[dict[str, Any]]]:
    """Connect to a server, read its tools, disconnect.

    Args:
        target: A stdio command line (string or argv) or an http(s) URL.
        name: The server's name for pins and findings (derived from the target if None).
        settle: Seconds to wait after connecting for ``tools/list_changed``.
        timeout: Seconds to wait for the server's answers.

    Returns:
        ``(server_name, tools)`` with tools in MCP wire form, in the server's order.

    Raises:
        ToolCallError: ``transport_error`` if the server cannot be started or reached.
    """
    from workbench.tools.mcp_client import MCPConnection

    conn = MCPConnection(target, name=name, timeout=timeout, connect_timeout=max(timeout, 30.0))
    try:
        conn.connect()
        if settle > 0:
            time.sleep(settle)
        return conn.name, conn.list_tools()
    finally:
        conn.close()


def import_surface(target: str | Sequence[str], out: str | Path, *, name: str | None = None,
                   settle: float = 0.0, force: bool = False,
                   timeout: float = 30.0) -> dict[str, Any]:
    """Snapshot a live server into the surface directory ``out``.

    Args:
        target: A stdio command line or an http(s) URL.
        out: The surface directory (created if needed).
        name: The server's name in ``pins.json`` (derived from the target if None).
        settle: Seconds to wait for tools the server adds right after connecting.
        force: Replace a surface that already has tools (its curation is lost).
        timeout: Seconds to wait for the server's answers.

    Returns:
        ``{"dir", "server", "tools": [names], "pinned": n}``.

    Raises:
        ConfigError: ``out`` already holds a curated surface and ``force`` is False.
        ToolCallError: the server cannot be reached.
    """
    out = Path(out)
    if not force and not is_empty(out):
        raise ConfigError(out, "", "already holds a surface with tools; pass force=True "
                          "(--force) to replace it, or import into a new directory")
    server, tools = fetch_tools(target, name=name, settle=settle, timeout=timeout)
    if not tools:
        raise ToolCallError("protocol_error", f"server {server!r} lists no tools; there is "
                            f"nothing to import")
    out.mkdir(parents=True, exist_ok=True)
    save_tools(out, [entry_from_wire(t) for t in tools])
    save_pins(out, [pin(t, server) for t in tools])
    if not (out / POLICY_FILE).exists():
        save_policy(out, "mcp-tool")
    return {"dir": str(out), "server": server, "tools": [t["name"] for t in tools],
            "pinned": len(tools)}
