"""Several MCP connections behind one tool registry, and who owns a shared tool name.

:class:`MCPResolver` implements :class:`~workbench.tools.registry.ToolResolver` over one
or more :class:`~workbench.tools.mcp.connection.MCPConnection`: the registry asks it for
tool names, specs and calls after the capability check has passed. When two servers offer
the same tool name the first connection owns it and the collision is reported.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.errors import ToolNotFound
from workbench.tools.mcp.connection import MCPConnection
from workbench.tools.registry import ToolSpec

__all__ = ["MCPResolver"]


class MCPResolver:
    """A :class:`~workbench.tools.registry.ToolResolver` over one or more connections.

    When two servers offer the same tool name, the first connection given owns it; the
    others are shadowed and listed in :attr:`collisions`.

    Args:
        connections: The connections, in priority order.

    Example:
        >>> from workbench.tools.registry import ToolRegistry
        >>> resolver = MCPResolver([MCPConnection("python -m workbench.tools.mcp.server")])
        >>> registry = ToolRegistry()  # doctest: +SKIP
        >>> registry.attach(resolver.connect())  # doctest: +SKIP
    """

    def __init__(self, connections: Iterable[MCPConnection]):
        self.connections: list[MCPConnection] = list(connections)
        names = [c.name for c in self.connections]
        for conn in self.connections:  # labels and change records need distinct names
            if names.count(conn.name) > 1:
                conn.rename(f"{conn.name}-{self.connections.index(conn) + 1}")
        self._owners: dict[str, MCPConnection] = {}
        self._collisions: list[dict[str, Any]] = []
        self._versions: tuple[int, ...] | None = None
        # Per calling thread: (tool, label) of the connection its last call went to. The
        # owner of a name can change between a call and its telemetry (a list change).
        self._served = threading.local()

    def connect(self) -> MCPResolver:
        """Start every connection's session concurrently; return ``self``.

        Raises:
            ToolCallError: ``transport_error`` naming the first server that failed (all
                connections are closed then, so nothing is left running).
        """
        futures = [(conn, conn.start_connect()) for conn in self.connections]
        try:
            for conn, future in futures:
                conn._wait(future, conn.connect_timeout + 5.0, "connect")
        except BaseException:
            self.close()
            raise
        return self

    # -- ToolResolver -----------------------------------------------------------------
    def tool_names(self) -> list[str]:
        """Every tool some connection owns, sorted."""
        return sorted(self._ownership())

    def get_spec(self, name: str) -> ToolSpec | None:
        """The owning server's description of ``name`` (with its inputSchema), or None."""
        owner = self._ownership().get(name)
        return owner.get_spec(name) if owner is not None else None

    def call_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Call ``name`` on the server that owns it.

        Raises:
            ToolNotFound: no connected server offers ``name``.
            ToolCallError: the call failed (the kind says how).
        """
        conn = self.connection_for(name)
        # Remembered before the call, so a failed call is labelled with its server too.
        self._served.last = (name, conn.label)
        return conn.call_tool(name, params)

    async def acall_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Async :meth:`call_tool`."""
        conn = self.connection_for(name)
        self._served.last = (name, conn.label)
        return await conn.acall_tool(name, params)

    def transport_label(self, name: str) -> str:
        """``stdio:<server>`` or ``http:<server>`` of the server that served ``name``.

        That is the connection this thread's last call of ``name`` went to, else the
        tool's owner now (telemetry only).
        """
        last = getattr(self._served, "last", None)
        if last is not None and last[0] == name:
            return last[1]
        owner = self._ownership().get(name)
        return owner.label if owner is not None else "mcp"

    def drain_changes(self) -> list[dict[str, Any]]:
        """Tool-list changes from every connection since the last drain (see MCPConnection)."""
        return [change for conn in self.connections for change in conn.drain_changes()]

    # -- the rest ---------------------------------------------------------------------
    def connection_for(self, name: str) -> MCPConnection:
        """The connection that owns tool ``name``.

        Raises:
            ToolNotFound: no connected server offers it.
        """
        owner = self._ownership().get(name)
        if owner is None:
            servers = ", ".join(c.name for c in self.connections) or "none"
            raise ToolNotFound(
                f"no MCP server offers tool {name!r} (servers: {servers}); check the tool name "
                f"or add the server that provides it to MCP_SERVERS or the scenario's servers"
            )
        return owner

    @property
    def collisions(self) -> list[dict[str, Any]]:
        """Tools offered by more than one server: ``{"tool", "owner", "shadowed": [...]}``."""
        self._ownership()
        return [dict(c) for c in self._collisions]

    def close(self) -> None:
        """Close every connection (idempotent)."""
        for conn in self.connections:
            conn.close()

    def __enter__(self) -> MCPResolver:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MCPResolver {', '.join(c.label for c in self.connections)}>"

    def _ownership(self) -> dict[str, MCPConnection]:
        versions = tuple(c.tools_version for c in self.connections)
        if versions != self._versions:
            owners: dict[str, MCPConnection] = {}
            shadowed: dict[str, list[str]] = {}
            for conn in self.connections:
                for name in conn.tool_names():
                    if name in owners:
                        shadowed.setdefault(name, []).append(conn.name)
                    else:
                        owners[name] = conn
            self._owners = owners
            self._collisions = [
                {"tool": n, "owner": owners[n].name, "shadowed": s}
                for n, s in sorted(shadowed.items())
            ]
            self._versions = tuple(c.tools_version for c in self.connections)
        return self._owners
