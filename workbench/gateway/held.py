"""Tools a server first offers while the gateway runs: held back until a person approves them.

A run takes a tool it has never seen on trust the first time (the overlay pins it when it
first describes it). A gateway lives for days in front of a host, so a tool that appears
after a ``tools/list_changed`` (a server quietly adding ``send_everything`` a week in) must
not be taken on trust: :class:`HeldResolver` sits between the overlay and the scenario's
servers and hides such a tool (not listed, its calls refused with reason ``pin drift``)
until ``pins.json`` holds a pin for exactly what the server offers now, which is what
``workbench surface approve`` writes. Tools offered when the gateway started, and tools
pinned in ``pins.json`` then, are the overlay's to judge, as in a run.

Example:
    >>> held = HeldResolver(resolver, "config/surfaces/watch-house")  # doctest: +SKIP
    >>> held.held()  # offered since the start, not yet approved  # doctest: +SKIP
    []
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.contracts.surface import PINS_FILE, load_pins
from workbench.errors import ToolDenied, ToolNotFound, WorkbenchError
from workbench.surface.overlay import surface_label
from workbench.surface.pins import fingerprint
from workbench.tools.registry import ToolSpec, acall_through

__all__ = ["HeldResolver", "HeldTool"]


class HeldTool(ToolDenied, ToolNotFound):
    """A call to (or a description of) a tool first offered after the gateway started.

    A :class:`~workbench.errors.ToolDenied` with reason ``pin drift`` (recorded as
    ``tool.denied``: what is offered differs from what was approved, which is nothing) and a
    :class:`~workbench.errors.ToolNotFound` (``describe`` skips it: the host is not shown it).
    """

    reason_code = "pin drift"

    def __init__(self, tool: str, server: str, surface: str, agent: str = ""):
        detail = (f"server {server!r} first offered {tool!r} after the gateway started, and "
                  f"nobody has approved it: review it with `workbench surface diff {surface} "
                  f"--server <command of {server!r}> --name {server}` and approve it with "
                  f"`workbench surface approve {surface} {tool} --server <command of "
                  f"{server!r}> --name {server}`; the gateway lists it once pins.json holds it")
        super().__init__(agent, tool, None, detail=detail)


class HeldResolver:
    """A resolver over the scenario's servers that holds back tools new since the start.

    Args:
        inner: The connected resolver (:class:`~workbench.tools.mcp.resolver.MCPResolver`).
        surface: The scenario's surface directory, whose ``pins.json`` approves tools (None:
            the scenario has no surface, so nothing new is ever approved).
    """

    def __init__(self, inner: Any, surface: str | Path | None):
        self.inner = inner
        self.surface = None if surface is None else Path(surface)
        self._label = surface_label(self.surface)
        #: Names offered when the gateway started (the overlay pins these on first sight).
        self.started_with = frozenset(inner.tool_names())
        self._pins_seen: tuple[float, int] | None = None
        self._pins: dict[str, Mapping[str, Any]] = {}
        self.reload_pins()
        #: Names pinned when the gateway started (the overlay holds these pins too).
        self.pinned_at_start = frozenset(self._pins)
        self._released: set[str] = set()

    # -- what is held ---------------------------------------------------------------------
    def is_held(self, name: str) -> bool:
        """Whether ``name`` is offered now but was neither offered nor pinned at the start."""
        if name in self.started_with or name in self.pinned_at_start or name in self._released:
            return False
        if self.inner.get_spec(name) is None:
            return False
        if self._approved_now(name):
            self._released.add(name)
            return False
        return True

    def held(self) -> list[str]:
        """Every tool held back now, sorted."""
        return [n for n in self.inner.tool_names() if self.is_held(n)]

    def reload_pins(self) -> bool:
        """Read ``pins.json`` again if it changed since the last read; True when it did.

        Raises:
            ConfigError: the file is not a pins file (a person's edit gone wrong); the pins
                read before stay in force.
        """
        if self.surface is None:
            return False
        path = self.surface / PINS_FILE
        try:
            info = os.stat(path)
            seen: tuple[float, int] | None = (info.st_mtime, info.st_size)
        except OSError:
            seen = None
        if seen == self._pins_seen:
            return False
        pins = {p["name"]: p for p in load_pins(self.surface)} if seen is not None else {}
        self._pins_seen = seen
        self._pins = pins
        return True

    def pin_of(self, name: str) -> Mapping[str, Any] | None:
        """``pins.json``'s entry for ``name`` as last read, or None."""
        return self._pins.get(name)

    def _approved_now(self, name: str) -> bool:
        entry = self._pins.get(name)
        spec = self.inner.get_spec(name)
        if entry is None or spec is None:
            return False
        return entry.get("fingerprint") == fingerprint(spec) and \
            entry.get("server") == self._server_of(name)

    def _server_of(self, name: str) -> str:
        try:
            return str(self.inner.connection_for(name).name)
        except (AttributeError, WorkbenchError, KeyError):
            return "server"

    # -- ToolResolver -------------------------------------------------------------------
    def tool_names(self) -> list[str]:
        """What the servers offer, less what is held."""
        return [n for n in self.inner.tool_names() if not self.is_held(n)]

    def get_spec(self, name: str) -> ToolSpec | None:
        """The server's description of ``name``.

        Raises:
            HeldTool: ``name`` is held back.
        """
        if self.is_held(name):
            raise HeldTool(name, self._server_of(name), self._label)
        return self.inner.get_spec(name)

    def call_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Call ``name`` unless it is held.

        Raises:
            HeldTool: ``name`` is held back (nothing is sent).
            ToolCallError: the call failed.
        """
        if self.is_held(name):
            raise HeldTool(name, self._server_of(name), self._label)
        return self.inner.call_tool(name, params)

    async def acall_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Async :meth:`call_tool`."""
        if self.is_held(name):
            raise HeldTool(name, self._server_of(name), self._label)
        return await acall_through(self.inner, name, params)

    # -- pass-through ---------------------------------------------------------------------
    def connection_for(self, name: str) -> Any:
        """The connection offering ``name`` (approval and pins read its name and trust)."""
        return self.inner.connection_for(name)

    def transport_label(self, name: str) -> str:
        """The inner resolver's label for ``name`` (telemetry)."""
        return self.inner.transport_label(name)

    def drain_changes(self) -> list[dict[str, Any]]:
        """The inner resolver's tool-list changes since the last drain."""
        return self.inner.drain_changes()

    @property
    def connections(self) -> list[Any]:
        """The inner resolver's connections."""
        return list(getattr(self.inner, "connections", []))

    def close(self) -> None:
        """Close the inner resolver (stops the servers)."""
        self.inner.close()

    def __repr__(self) -> str:
        return f"<HeldResolver over {self.inner!r}>"

