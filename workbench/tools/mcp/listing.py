"""What one MCP server lists: every definition, the names it lists twice, and net changes.

A :class:`ToolListing` takes each ``tools/list`` a connection receives (the first, and
each re-list after ``tools/list_changed``, a reconnect or a refresh) and keeps:

* every definition in the server's order, twins included, for audits and imports;
* the names listed more than once, which no call may use (they are ambiguous);
* a spec per unambiguous name, its input schema compiled now (an unusable schema makes
  the tool's calls fail as ``protocol_error``, never a crash mid-turn);
* the tools as they were at the last drain, so a drain reports one *net* change however
  many times the server churned its list in between.

Pure bookkeeping: no I/O, thread-safe (listings arrive on the connection's loop thread,
drains come from the conductor's).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from workbench.tools.mcp.wire import AmbiguousTool, guarded_spec
from workbench.tools.registry import ToolSpec

__all__ = ["ToolListing", "announces_list_changes"]


class ToolListing:
    """The tool list of one server.

    Args:
        server: The server's name (for change records and messages).
        note: Writes one line to the connection's log.
    """

    def __init__(self, server: str, note: Callable[[str], None]):
        self.server = server
        self._note = note
        self._lock = threading.Lock()
        self.tools: dict[str, dict[str, Any]] | None = None  # wire form by name; None: unlisted
        self.definitions: list[dict[str, Any]] = []  # every definition, twins included
        self.twins: dict[str, int] = {}  # names listed more than once -> how many times
        self.specs: dict[str, ToolSpec] = {}
        #: Listings taken so far (a resolver re-reads ownership when it changes).
        self.version = 0
        self._drained: dict[str, dict[str, Any]] | None = None
        self._causes: list[str] = []

    def names(self) -> list[str]:
        """Every listed name, ambiguous ones included, sorted."""
        return sorted({*self.specs, *self.twins})

    def spec(self, name: str) -> ToolSpec | None:
        """The spec of ``name``, or None if unlisted.

        Raises:
            AmbiguousTool: the server lists more than one definition under ``name``.
        """
        if name in self.twins:
            raise AmbiguousTool(name, self.server, self.twins[name])
        return self.specs.get(name)

    def absorb(self, tools: Iterable[Any], cause: str | None) -> None:
        """Take a fresh listing (SDK ``Tool`` models); ``cause`` is None for the first."""
        listing = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
        new: dict[str, dict[str, Any]] = {}
        twins: dict[str, int] = {}
        for wire in listing:
            name = wire.get("name")
            if name in new:
                twins[name] = twins.get(name, 1) + 1
            else:
                new[name] = wire
        if twins:
            self._note(f"the server lists some names more than once: {json.dumps(twins)}; "
                       f"calls to them are refused as ambiguous")
        for name in twins:  # a change of either twin is a change of the name
            new[name] = {"name": name, "twins": [w for w in listing if w.get("name") == name]}
        specs = {name: guarded_spec(wire, self.server) for name, wire in new.items()
                 if name not in twins}
        with self._lock:
            old = self.tools
            self.tools, self.definitions, self.twins, self.specs = new, listing, twins, specs
            self.version += 1
            if self._drained is None:
                self._drained = new
            if cause is not None and old is not None and old != new:
                self._causes.append(cause)
        if cause is not None:
            self._note(f"re-listed tools ({cause}): "
                       f"{'changed' if old != new else 'no difference'}")

    def drain(self) -> list[dict[str, Any]]:
        """The net change since the last drain as at most one record (see MCPConnection)."""
        with self._lock:
            causes, self._causes = self._causes, []
            old, new = self._drained, self.tools
            self._drained = new
        if not causes or old is None or new is None:
            return []
        added = sorted(set(new) - set(old))
        removed = sorted(set(old) - set(new))
        changed = sorted(n for n in set(new) & set(old) if new[n] != old[n])
        if not (added or removed or changed):
            return []
        return [{"server": self.server, "cause": causes[0], "added": added,
                 "removed": removed, "changed": changed}]


def announces_list_changes(client: Any) -> bool:
    """Whether a connected SDK ``Client`` must be listened to for tool-list changes.

    Older sessions deliver ``tools/list_changed`` to the message handler; 2026-07-28
    sessions only through a ``subscriptions/listen`` stream, opened when this is true.
    """
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    tools = client.server_capabilities.tools
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    return modern and tools is not None and bool(tools.list_changed)
