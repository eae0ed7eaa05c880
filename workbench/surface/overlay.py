"""The overlay: a curated surface in front of a resolver, with pins enforced.

:class:`CuratedResolver` implements :class:`~workbench.tools.registry.ToolResolver` over
another resolver (usually :class:`~workbench.tools.mcp.resolver.MCPResolver`):

* agents see the curated title, description, parameter descriptions and examples (through
  ``ToolRegistry.describe``, so the ``AVAILABLE TOOLS`` block shows them);
* a tool the server offers but the surface does not list (removed, or never imported) is
  invisible, and a call to it is refused with reason ``hidden by curation``;
* a call goes to the server with the caller's arguments unchanged, validated against the
  server's own schema (curation never changes the contract);
* every tool is pinned (``pins.json``, or trust on first use) to its definition *and* the
  server that offered it; a tool whose server description changed (after
  ``tools/list_changed`` or a reconnect), or that another server now offers, even with
  identical metadata, is refused with reason ``pin drift`` until
  :meth:`CuratedResolver.approve` re-pins it. Meanwhile agents keep seeing the approved
  text, never the new one. A pinned tool no server offers any more is refused the same
  way (:class:`PinGone`); the refusal's ``detail`` says which of the three it is and what
  resolves it (:func:`~workbench.surface.pins.drift_detail`).

A ``code`` entry runs in-process, and only under capability ``tools`` with its module
declared in ``policy.json`` (see :mod:`workbench.surface.code`); any other code entry
makes the overlay refuse to load, before anything is imported. A coded tool's annotations
are tools.json's word, so its calls are confirmed by the approver unless
``trust_code=True`` (a scenario's ``trusted_code: true``).

Example:
    >>> from workbench.tools.registry import ToolRegistry  # doctest: +SKIP
    >>> overlay = CuratedResolver.from_dir("config/surfaces/time", resolver)  # doctest: +SKIP
    >>> registry = ToolRegistry(); overlay.install(registry)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from workbench.contracts.surface import (
    TOOLS_FILE,
    code_problem,
    load_pins,
    load_policy,
    load_tools,
    save_pins,
)
from workbench.errors import ConfigError, ToolDenied, ToolNotFound, WorkbenchError
from workbench.surface.code import load_function
from workbench.surface.pins import (
    PinChange,
    drift_detail,
    fingerprint,
    normalize_wire,
    pin,
    pin_changes,
)
from workbench.tools.registry import ToolResolver, ToolSpec, acall_through

__all__ = ["CuratedResolver", "HiddenByCuration", "PinDrift", "PinGone", "curated_spec",
           "surface_label"]


def surface_label(dir: str | Path | None) -> str:
    """How refusals name a surface directory in the commands they suggest.

    ``<config>/surfaces/NAME`` as ``config/surfaces/NAME`` (the config directory's own
    name: the commands run from the project directory, its parent); any other directory by
    its name. Never an absolute path: the text is recorded on the ledger, which must read
    the same on every machine.
    """
    if dir is None:
        return "SURFACE"
    path = Path(dir)
    if path.parent.name == "surfaces" and path.parent.parent.name:
        return f"{path.parent.parent.name}/surfaces/{path.name}"
    return path.name or "SURFACE"


class HiddenByCuration(ToolDenied, ToolNotFound):
    """A call to a tool the surface hides.

    It is a :class:`ToolDenied` (the call is refused and recorded as ``tool.denied``) and a
    :class:`ToolNotFound` (``describe`` skips it: the tool is invisible to agents).
    """

    reason_code = "hidden by curation"

    def __init__(self, tool: str, surface: str = ""):
        self.agent, self.tool, self.reason = "", tool, self.reason_code
        where = f" at {surface}" if surface else ""
        WorkbenchError.__init__(
            self, f"{tool!r} is hidden by curation: the surface{where} does not list it. "
            f"Add it with an 'add' edit (or re-import the server) to expose it.")


class PinDrift(ToolDenied):
    """A call to a tool that differs from its pin: changed, or offered by another server.

    Its ``reason`` is the category ``pin drift``; its ``detail`` says which case it is
    (the fields that changed, or the pinned and the offering server's names) and what
    resolves it (:func:`~workbench.surface.pins.drift_detail`).

    Attributes:
        fields: The pinned fields that differ (``server`` when another server offers it).
        servers: ``(pinned, offering)`` server names, when known.
    """

    reason_code = "pin drift"

    def __init__(self, agent: str, tool: str, fields: Iterable[str] = (),
                 servers: tuple[str, str | None] | None = None, *,
                 surface: str = "SURFACE"):
        self.fields = tuple(fields)
        self.servers = servers
        pinned, offered = servers if servers is not None else ("the server", "the server")
        super().__init__(agent, tool, None,
                         detail=drift_detail(tool, pinned, offered, self.fields,
                                             surface=surface))


class PinGone(PinDrift, ToolNotFound):
    """A call to a pinned tool that no server offers now.

    A :class:`PinDrift` (recorded as ``tool.denied``, reason ``pin drift``) and a
    :class:`ToolNotFound` (``describe`` skips it: agents are not shown it).
    """

    def __init__(self, tool: str, pinned: str, agent: str = "", *, surface: str = "SURFACE"):
        self.fields = ()
        self.servers = (pinned, None)
        detail = drift_detail(tool, pinned, None, surface=surface)
        ToolDenied.__init__(self, agent, tool, None, detail=detail)
        if not agent:  # raised while describing: nobody has asked yet
            WorkbenchError.__init__(self, f"{tool!r} may not be called: {self.reason}: "
                                          f"{detail}")


class _CodeOrigin:
    """Who offers a coded tool, as the approval guard reads it (``name``, ``trusted``)."""

    def __init__(self, module: str, trusted: bool):
        self.name = f"code:{module}"
        self.trusted = trusted


class CuratedResolver:
    """A curated surface in front of ``resolver``.

    Args:
        tools: The surface's entries (tools.json form).
        resolver: Where calls really go.
        pins: ``pins.json`` entries; a tool without a pin is pinned when first seen.
        dir: The surface directory, if it came from one (``approve`` saves pins there).
        show_examples: Append the curated examples to the description agents read.
        policy: The surface's policy (``load_policy``); None is ``mcp-tool``'s default,
            under which no ``code`` entry is allowed.
        trust_code: Believe coded tools' annotations (a scenario's ``trusted_code``).

    Raises:
        ConfigError: a ``code`` entry the policy does not allow (nothing is imported).
    """

    def __init__(self, tools: Iterable[Mapping[str, Any]], resolver: ToolResolver, *,
                 pins: Iterable[Mapping[str, Any]] = (), dir: str | Path | None = None,
                 show_examples: bool = True, policy: Mapping[str, Any] | None = None,
                 trust_code: bool = False):
        self.resolver = resolver
        self.dir = None if dir is None else Path(dir)
        self.show_examples = show_examples
        self.policy = dict(policy) if policy is not None else {"capability": "mcp-tool",
                                                               "modules": []}
        self.trust_code = trust_code
        tools = list(tools)
        where = self.dir / TOOLS_FILE if self.dir is not None else "<surface>"
        for i, entry in enumerate(tools):
            if "code" in entry:
                problem = code_problem(entry["code"], self.policy)
                if problem is not None:
                    raise ConfigError(where, f"tools[{i}].code", problem)
        self._entries = {t["name"]: dict(t) for t in tools}
        self._pins: dict[str, dict[str, Any]] = {p["name"]: dict(p) for p in pins}
        self._code: dict[str, Callable[..., dict[str, Any]]] = {}
        self._specs: dict[str, tuple[Any, ToolSpec]] = {}

    @classmethod
    def from_dir(cls, dir: str | Path, resolver: ToolResolver, **kwargs: Any) -> CuratedResolver:
        """The overlay for the surface in ``dir`` (tools.json, policy.json and pins.json)."""
        return cls(load_tools(dir), resolver, pins=load_pins(dir), dir=dir,
                   policy=load_policy(dir), **kwargs)

    def install(self, registry: Any) -> CuratedResolver:
        """Attach to ``registry`` as its resolver and add the pin guard; returns ``self``."""
        registry.attach(self)
        registry.add_guard(self.guard)
        return self

    # -- ToolResolver -----------------------------------------------------------------
    def tool_names(self) -> list[str]:
        """Curated tools that can be called: listed by the surface and offered (or coded)."""
        offered = set(self.resolver.tool_names())
        return sorted(n for n, e in self._entries.items() if "code" in e or n in offered)

    def get_spec(self, name: str) -> ToolSpec | None:
        """The tool as agents should see it.

        Raises:
            HiddenByCuration: the server offers it and the surface does not list it.
        """
        entry = self._entries.get(name)
        if entry is None:
            if self.resolver.get_spec(name) is not None:
                raise HiddenByCuration(name, str(self.dir or ""))
            return None
        if "code" in entry:
            return self._coded_spec(entry)
        server = self.resolver.get_spec(name)
        if server is None:
            if name in self._pins:  # approved once, offered by nothing now
                raise PinGone(name, self._pins[name]["server"], surface=self._label)
            return None
        current = fingerprint(server)
        owner = self._server_of(name)
        if name not in self._pins:  # trust on first use, then hold it to that
            self._pins[name] = pin(server, owner)
        approved = self._pins[name]
        base: Any = server
        if approved["fingerprint"] != current or not self._same_server(approved, owner):
            # Drifted: keep showing what was approved, never the new text.
            base = approved["wire"]
        key = approved["fingerprint"] if base is not server else current
        cached = self._specs.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        spec = self._curate(entry, normalize_wire(base))
        self._specs[name] = (key, spec)
        return spec

    def call_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Call the server with ``params`` unchanged, unless hidden or drifted.

        Raises:
            HiddenByCuration: the surface does not list ``name``.
            PinDrift: the server's description changed since it was approved, another
                server offers it, or (:class:`PinGone`) no server does.
            ToolCallError: the call failed.
        """
        self.check(name)
        entry = self._entries[name]
        if "code" in entry:
            return self._function(entry)(**params)
        return self.resolver.call_tool(name, params)

    async def acall_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Async :meth:`call_tool`: the same checks, then the resolver awaited."""
        self.check(name)
        entry = self._entries[name]
        if "code" in entry:
            return self._function(entry)(**params)
        return await acall_through(self.resolver, name, params)

    # -- pins -------------------------------------------------------------------------
    def guard(self, agent: str, spec: ToolSpec, params: Mapping[str, Any]) -> None:
        """A registry guard: refuse hidden and drifted tools, naming the agent."""
        self.check(spec.name, agent)

    def check(self, name: str, agent: str = "") -> None:
        """Raise if ``name`` may not be called now (hidden, or its pin drifted)."""
        entry = self._entries.get(name)
        if entry is None:
            raise HiddenByCuration(name, str(self.dir or ""))
        if "code" in entry:
            return
        change = self.drift(name)
        if change is None:
            return
        pinned = self._pins[name]["server"]
        if change.status == "removed":
            raise PinGone(name, pinned, agent, surface=self._label)
        raise PinDrift(agent, name, change.fields, (pinned, self._server_of(name)),
                       surface=self._label)

    def drift(self, name: str) -> PinChange | None:
        """How what is offered as ``name`` now differs from its pin, or None.

        A different server offering it is drift (field ``server``) even when every pinned
        field is equal: a pin binds the tool to the server it was approved from. A pinned
        tool no server offers is ``removed``.
        """
        approved = self._pins.get(name)
        if approved is None:
            return None
        server = self.resolver.get_spec(name)
        if server is None:
            return PinChange(name, "removed", before=approved["wire"])
        moved = not self._same_server(approved, self._server_of(name))
        if fingerprint(server) == approved["fingerprint"] and not moved:
            return None
        changes = pin_changes([approved["wire"]], [server])
        change = next((c for c in changes if c.status != "same"), None)
        if not moved:
            return change
        fields = tuple(sorted({"server", *(change.fields if change is not None else ())}))
        return PinChange(name, "drift", fields, before=approved["wire"],
                         after=normalize_wire(server))

    def drifted(self) -> list[PinChange]:
        """Every curated tool whose pin no longer matches what is offered, sorted by name."""
        return [c for n in sorted(self._entries) if "code" not in self._entries[n]
                and (c := self.drift(n)) is not None]

    def approve(self, name: str, *, save: bool = True) -> None:
        """Re-pin ``name`` to what the server says now (after a person reviewed it).

        Args:
            name: The tool.
            save: Also write ``pins.json`` when the overlay came from a directory.

        Raises:
            ToolNotFound: the server does not offer ``name``.
        """
        server = self.resolver.get_spec(name)
        if server is None:
            raise ToolNotFound(f"no server offers {name!r} now; nothing to approve")
        self._pins[name] = pin(server, self._server_of(name))
        self._specs.pop(name, None)
        if save and self.dir is not None:
            save_pins(self.dir, list(self._pins.values()))

    # -- pass-through to the transport --------------------------------------------------
    def drain_changes(self) -> list[dict[str, Any]]:
        """The inner resolver's tool-list changes (the conductor records them)."""
        drain = getattr(self.resolver, "drain_changes", None)
        return drain() if drain is not None else []

    def transport_label(self, name: str) -> str:
        """``in-process`` for coded tools, else the inner resolver's label."""
        if "code" in self._entries.get(name, {}):
            return "in-process"
        label = getattr(self.resolver, "transport_label", None)
        return label(name) if callable(label) else "resolver"

    def connection_for(self, name: str) -> Any:
        """Who offers ``name`` (the approval guard reads its ``name`` and ``trusted``).

        The inner resolver's connection, or for a coded tool its module
        (``code:<module>``), trusted only with ``trust_code``.
        """
        entry = self._entries.get(name, {})
        if "code" in entry:
            return _CodeOrigin(entry["code"].partition(":")[0], self.trust_code)
        return self.resolver.connection_for(name)  # type: ignore[attr-defined]

    def close(self) -> None:
        """Close the inner resolver if it can be closed."""
        close = getattr(self.resolver, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        return f"<CuratedResolver {len(self._entries)} tools over {self.resolver!r}>"

    # -- helpers ----------------------------------------------------------------------
    @property
    def _label(self) -> str:
        return surface_label(self.dir)

    def _server_of(self, name: str) -> str:
        try:
            return str(self.connection_for(name).name)
        except (AttributeError, WorkbenchError, KeyError):
            return "server"

    def _same_server(self, approved: Mapping[str, Any], owner: str) -> bool:
        # A resolver that cannot say who serves a tool (no connection_for) cannot move it.
        if getattr(self.resolver, "connection_for", None) is None:
            return True
        return approved["server"] == owner

    def _curate(self, entry: Mapping[str, Any], wire: Mapping[str, Any]) -> ToolSpec:
        return curated_spec(entry, wire, show_examples=self.show_examples)

    def _coded_spec(self, entry: Mapping[str, Any]) -> ToolSpec:
        return ToolSpec(name=entry["name"], description=entry["description"],
                        run=self._function(entry), title=entry.get("title"),
                        input_schema=entry.get("parameters"),
                        output_schema=entry.get("output_schema"),
                        annotations=entry.get("annotations"))

    def _function(self, entry: Mapping[str, Any]) -> Callable[..., dict[str, Any]]:
        name = entry["name"]
        if name not in self._code:
            self._code[name] = load_function(entry["code"], self.policy, name)
        return self._code[name]


def curated_spec(entry: Mapping[str, Any], wire: Mapping[str, Any], *,
                 show_examples: bool = True) -> ToolSpec:
    """What an agent is shown of a server's tool ``wire`` curated by ``entry``.

    The server's input schema stays as is, but for parameter descriptions and examples
    (documentation only: they never change validation); the description is the curated
    one, with the curated examples appended when ``show_examples``.
    """
    schema = copy.deepcopy(dict(wire.get("inputSchema") or {}))
    curated_props = (entry.get("parameters") or {}).get("properties") or {}
    for prop, info in (schema.get("properties") or {}).items():
        mine = curated_props.get(prop)
        if isinstance(mine, Mapping) and isinstance(info, dict):
            for key in ("description", "examples"):
                if key in mine:
                    info[key] = mine[key]
    description = entry["description"]
    if show_examples and entry.get("examples"):
        from workbench.contracts.canonical import canonical_json

        shown = "; ".join(f"{entry['name']}({canonical_json(e)})" for e in entry["examples"])
        description = f"{description}\nExamples: {shown}"
    return ToolSpec(name=entry["name"], description=description,
                    title=entry.get("title") or wire.get("title"), input_schema=schema,
                    output_schema=wire.get("outputSchema"),
                    annotations=wire.get("annotations"))
