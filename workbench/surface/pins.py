"""Pins: fingerprints of what a server said its tools were, and how that changed.

A server's metadata is untrusted and can change under a running client (a "rug pull": a
tool is approved with a harmless description, then re-described after
``tools/list_changed``). A pin is a sha256 over the canonical JSON of the tool's MCP wire
fields ``name, title, description, inputSchema, outputSchema, annotations``: key order and
insignificant whitespace do not change it, any change of content does.

:func:`pin_changes` classifies two snapshots tool by tool as ``same``, ``drift`` (with the
fields that changed), ``rename`` (one tool gone and one new with the same schema and
behaviour fields), ``added`` or ``removed``. :func:`drift_detail` says in one sentence
which case a refused call is (changed fields, the same tool from another server name, a
tool no server offers) and the commands that resolve it.

Example:
    >>> a = {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}
    >>> b = {"description": "Echo.", "inputSchema": {"type": "object"}, "name": "echo"}
    >>> fingerprint(a) == fingerprint(b)
    True
    >>> [c.status for c in pin_changes([a], [dict(a, description="Echo, then email it.")])]
    ['drift']
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.contracts.canonical import canonical_json
from workbench.tools.registry import ToolSpec

__all__ = [
    "PIN_FIELDS",
    "PinChange",
    "pin_changes",
    "drift_detail",
    "fingerprint",
    "has_name",
    "nameless",
    "normalize_wire",
    "pin",
]

#: The wire fields a pin covers (``icons``, ``_meta`` and ``execution`` are presentation).
PIN_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")

#: Fields that say what a tool *does*; equal ones make a removed + added pair a rename.
_BEHAVIOUR_FIELDS = ("inputSchema", "outputSchema", "annotations")

_EMPTY_INPUT = {"type": "object", "properties": {}}


def normalize_wire(tool: Any) -> dict[str, Any]:
    """The pinned fields of a tool, from a wire dict or a ToolSpec, with empties dropped.

    ``title=""``, ``title=None`` and no title are the same thing on the wire, and a tool
    without an input schema takes no arguments; normalising keeps such spellings from
    looking like drift.
    """
    if not isinstance(tool, Mapping):
        to_wire = getattr(tool, "to_wire", None)
        if to_wire is None:
            raise TypeError(f"cannot pin {type(tool).__name__}: pass a wire dict or ToolSpec")
        tool = to_wire()
    out: dict[str, Any] = {}
    for key in PIN_FIELDS:
        value = tool.get(key)
        if key == "inputSchema" and not value:
            value = _EMPTY_INPUT
        if value is None or value == "" or value == {}:
            continue
        out[key] = value
    out.setdefault("description", "")
    return out


def _wire_of(tool: Any) -> Any:
    # A pins.json entry carries the wire form under "wire".
    return tool["wire"] if isinstance(tool, Mapping) and "wire" in tool else tool


def has_name(tool: Any) -> bool:
    """True when ``tool`` (wire dict, pins entry or ToolSpec) has a non-empty string name.

    A server can list a tool named ``""``; such a tool cannot be pinned, curated or called,
    so every reader flags and skips it rather than crash on it.
    """
    wire = _wire_of(tool)
    name = wire.get("name") if isinstance(wire, Mapping) else getattr(wire, "name", None)
    return isinstance(name, str) and name != ""


def nameless(tools: Iterable[Any] | Mapping[str, Any]) -> int:
    """How many of ``tools`` have no name (see :func:`has_name`)."""
    values = tools.values() if isinstance(tools, Mapping) else tools
    return sum(1 for tool in values if not has_name(tool))


def fingerprint(tool: Any) -> str:
    """sha256 hex over the canonical JSON of the tool's pinned fields.

    A :class:`~workbench.tools.registry.ToolSpec` (frozen: a server's listing makes new
    ones, never changes one) is hashed once: every call checks its tool's pin.
    """
    frozen = isinstance(tool, ToolSpec)
    if frozen:
        known = _FINGERPRINTS.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
    found = hashlib.sha256(canonical_json(normalize_wire(tool)).encode("utf-8")).hexdigest()
    if frozen:
        if len(_FINGERPRINTS) >= _FINGERPRINTS_KEPT:
            _FINGERPRINTS.clear()
        _FINGERPRINTS[id(tool)] = (tool, found)  # the spec is kept, so its id is not reused
    return found


#: Fingerprints of the specs met lately, by identity; cleared whole when full (listings
#: are small and change seldom).
_FINGERPRINTS: dict[int, tuple[Any, str]] = {}
_FINGERPRINTS_KEPT = 4096


def pin(tool: Any, server: str) -> dict[str, Any]:
    """A ``pins.json`` entry: ``{name, server, fingerprint, wire}``."""
    wire = normalize_wire(tool)
    return {"name": wire["name"], "server": server, "fingerprint": fingerprint(wire),
            "wire": wire}


@dataclass(frozen=True)
class PinChange:
    """How one tool differs between two snapshots.

    Attributes:
        tool: The tool's name (after the change; for ``removed``, before it).
        status: ``same``, ``drift``, ``rename``, ``added`` or ``removed``.
        fields: For ``drift``, the pinned fields that changed, sorted.
        previous: For ``rename``, the old name.
        before: The pinned fields before (None for ``added``).
        after: The pinned fields after (None for ``removed``).
    """

    tool: str
    status: str
    fields: tuple[str, ...] = ()
    previous: str | None = None
    before: Mapping[str, Any] | None = field(default=None, repr=False)
    after: Mapping[str, Any] | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """``{"tool", "status", "fields", "previous"}`` (JSON-serialisable)."""
        return {"tool": self.tool, "status": self.status, "fields": list(self.fields),
                "previous": self.previous}


def _by_name(tools: Iterable[Any] | Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    if isinstance(tools, Mapping):
        tools = tools.values()
    out = {}
    for tool in tools:
        if not has_name(tool):
            continue  # flagged by the caller (see nameless), never a crash here
        norm = normalize_wire(_wire_of(tool))
        out[norm["name"]] = norm
    return out


def pin_changes(before: Iterable[Any] | Mapping[str, Any],
            after: Iterable[Any] | Mapping[str, Any]) -> list[PinChange]:
    """Classify every tool of two snapshots; sorted by tool name.

    Args:
        before: The pinned snapshot: wire dicts, ToolSpecs or ``pins.json`` entries.
        after: What the server says now, in any of the same forms.

    Returns:
        One :class:`PinChange` per named tool (tools without a name are skipped: count
        them with :func:`nameless`). A removed tool and an added one whose schema and
        behaviour fields (inputSchema, outputSchema, annotations) are equal pair up as
        one ``rename`` (the new name, with ``previous`` the old one); each removed tool
        pairs at most once, in name order, so the result is deterministic.
    """
    old, new = _by_name(before), _by_name(after)
    changes: list[PinChange] = []
    for name in sorted(old.keys() & new.keys()):
        a, b = old[name], new[name]
        if canonical_json(a) == canonical_json(b):
            changes.append(PinChange(name, "same", before=a, after=b))
        else:
            changed = tuple(sorted(k for k in PIN_FIELDS if a.get(k) != b.get(k)))
            changes.append(PinChange(name, "drift", changed, before=a, after=b))
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())

    def behaviour(tool: Mapping[str, Any]) -> str:
        return canonical_json({k: tool.get(k) for k in _BEHAVIOUR_FIELDS})

    unpaired = {name: behaviour(old[name]) for name in removed}
    for name in added:
        key = behaviour(new[name])
        match = next((r for r in removed if unpaired.get(r) == key), None)
        if match is None:
            changes.append(PinChange(name, "added", after=new[name]))
            continue
        del unpaired[match]
        fields = tuple(sorted(k for k in PIN_FIELDS
                              if k != "name" and old[match].get(k) != new[name].get(k)))
        changes.append(PinChange(name, "rename", fields, previous=match,
                                 before=old[match], after=new[name]))
    for name in removed:
        if name in unpaired:
            changes.append(PinChange(name, "removed", before=old[name]))
    changes.sort(key=lambda c: (c.tool, c.status))
    return changes


def drift_detail(tool: str, pinned: str, offered: str | None, fields: Iterable[str] = (),
                 *, surface: str = "SURFACE") -> str:
    """Which drift a pinned tool is in, and what resolves it, in one sentence for a person.

    Args:
        tool: The tool.
        pinned: The server name its pin holds.
        offered: The server name that offers it now (None: no server does).
        fields: The pinned fields that differ; ``server`` stands for ``offered != pinned``.
        surface: The surface directory as the commands in the sentence should name it.

    Example:
        >>> drift_detail("echo", "a", "b", ("server",), surface="config/surfaces/s")
        "pinned to server 'a', offered by 'b': re-pin with `workbench surface approve \
config/surfaces/s echo --server <command of 'b'> --name b`, or name the server 'a' in the \
scenario"
    """
    changed = ", ".join(f for f in sorted(set(fields)) if f != "server")
    if offered is None:
        return (f"pinned to server {pinned!r}, but no server offers it now: name the server "
                f"{pinned!r} in the scenario if it is missing, or hide {tool} from agents "
                f"with a 'remove' edit")
    where = f"{shlex.quote(surface)} --server <command of {offered!r}> --name " \
            f"{shlex.quote(offered)}"
    diff = f"`workbench surface diff {where}`"
    approve = (f"`workbench surface approve {shlex.quote(surface)} {shlex.quote(tool)} "
               f"--server <command of {offered!r}> --name {shlex.quote(offered)}`")
    if offered != pinned and not changed:
        return (f"pinned to server {pinned!r}, offered by {offered!r}: re-pin with {approve}, "
                f"or name the server {pinned!r} in the scenario")
    if offered != pinned:
        return (f"pinned to server {pinned!r}, offered by {offered!r}, which also changed "
                f"{changed}: review it with {diff} before you re-pin it with {approve}")
    return (f"server {pinned!r} changed {changed or 'its metadata'} since it was pinned: "
            f"review it with {diff} and re-pin it with {approve}")
