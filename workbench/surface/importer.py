"""Import: snapshot a live MCP server's ``tools/list`` into a surface directory, pinned.

``import_surface(target, out)`` starts the server (a stdio command line or an http(s)
URL) through :class:`~workbench.tools.mcp.connection.MCPConnection`, reads its tools and
writes ``tools.json`` (the server's own text, ready to curate), ``pins.json`` (a
fingerprint and the wire form of every tool) and, if there is none, a ``policy.json``
with capability ``mcp-tool``. The session is short-lived on purpose: an import is a
snapshot, not a run.

A tool whose name is empty or missing cannot be curated, pinned or called: it is skipped
and reported under ``skipped``, never a crash.

Some servers add tools a moment after connecting and announce them with
``tools/list_changed`` (server-everything does); ``settle`` waits that long for such
announcements before the snapshot is taken.

Example:
    >>> import_surface(".venv/bin/mcp-server-time", "config/surfaces/time")  # doctest: +SKIP
    {'dir': 'config/surfaces/time', 'servers': ['mcp-server-time'], 'tools': [...], ...}
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.contracts.surface import (
    POLICY_FILE,
    entry_from_wire,
    is_empty,
    save_pins,
    save_policy,
    save_tools,
)
from workbench.errors import ConfigError, ToolCallError
from workbench.surface.pins import has_name, pin

__all__ = ["fetch_tools", "import_surface"]


def fetch_tools(target: Any, *, name: str | None = None, settle: float = 0.0,
                timeout: float = 30.0) -> tuple[str, list[dict[str, Any]]]:
    """Connect to a server, read its tools, disconnect.

    Args:
        target: A stdio command line (string or argv), an http(s) URL, or an open
            :class:`~workbench.tools.mcp.connection.MCPConnection` (read, not closed).
        name: The server's name for pins and findings (derived from the target if None).
        settle: Seconds to wait after connecting for ``tools/list_changed``.
        timeout: Seconds to wait for the server's answers.

    Returns:
        ``(server_name, tools)`` with tools in MCP wire form, in the server's order.

    Raises:
        ToolCallError: ``transport_error`` if the server cannot be started or reached.
    """
    if hasattr(target, "list_tools"):  # a live MCPConnection: read it, leave it open
        live: Any = target
        if settle > 0:
            time.sleep(settle)
        return name or str(live.name), live.list_tools()
    from workbench.tools.mcp.connection import MCPConnection

    conn = MCPConnection(target, name=name, timeout=timeout, connect_timeout=max(timeout, 30.0))
    try:
        conn.connect()
        if settle > 0:
            time.sleep(settle)
        return conn.name, conn.list_tools()
    finally:
        conn.close()


def import_surface(servers: Any, out: str | Path, *,
                   names: Sequence[str | None] | None = None, settle: float = 0.0,
                   force: bool = False, timeout: float = 30.0) -> dict[str, Any]:
    """Snapshot one or more live servers into the surface directory ``out``.

    Args:
        servers: A stdio command line, an http(s) URL or an open MCPConnection, or a
            list of them. When two servers
            offer the same tool name the first one owns it (as in the MCP resolver) and
            the other is reported under ``shadowed``.
        out: The surface directory (created if needed).
        names: The servers' names in ``pins.json`` (derived from the targets if None).
        settle: Seconds to wait for tools a server adds right after connecting.
        force: Replace a surface that already has tools (its curation is lost).
        timeout: Seconds to wait for the servers' answers.

    Returns:
        ``{"dir", "servers": [names], "tools": [names], "pinned": n, "shadowed": [...],
        "skipped": [{"server", "index", "reason"}]}`` (``skipped``: tools without a name).

    Raises:
        ConfigError: ``out`` already holds a curated surface and ``force`` is False.
        ToolCallError: a server cannot be reached or lists no tools.
    """
    out = Path(out)
    targets = list(servers) if isinstance(servers, list | tuple) else [servers]
    labels = list(names) if names is not None else [None] * len(targets)
    if len(labels) != len(targets):
        raise ValueError(f"{len(targets)} servers but {len(labels)} names; give one name each")
    if not force and not is_empty(out):
        raise ConfigError(out, "", "already holds a surface with tools; pass force=True "
                          "(--force) to replace it, or import into a new directory")
    entries: list[dict[str, Any]] = []
    pins: list[dict[str, Any]] = []
    owner: dict[str, str] = {}
    shadowed: list[dict[str, str]] = []
    skipped: list[dict[str, Any]] = []
    server_names = []
    for target, label in zip(targets, labels, strict=True):
        server, tools = fetch_tools(target, name=label, settle=settle, timeout=timeout)
        if not tools:
            raise ToolCallError("protocol_error", f"server {server!r} lists no tools; there "
                                f"is nothing to import")
        server_names.append(server)
        for index, tool in enumerate(tools):
            if not has_name(tool):
                skipped.append({"server": server, "index": index,
                                "reason": "the tool has no name (empty or missing); it cannot "
                                          "be curated, pinned or called"})
                continue
            if tool["name"] in owner:
                shadowed.append({"tool": tool["name"], "owner": owner[tool["name"]],
                                 "shadowed": server})
                continue
            owner[tool["name"]] = server
            entries.append(entry_from_wire(tool))
            pins.append(pin(tool, server))
    out.mkdir(parents=True, exist_ok=True)
    save_tools(out, entries)
    save_pins(out, pins)
    if not (out / POLICY_FILE).exists():
        save_policy(out, "mcp-tool")
    return {"dir": str(out), "servers": server_names, "tools": [e["name"] for e in entries],
            "pinned": len(pins), "shadowed": shadowed, "skipped": skipped}
