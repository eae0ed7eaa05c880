"""The contract one agent has in a run, opened for a host: registry, grants and what is shown.

:meth:`Contract.open` starts the scenario's servers and builds its registry exactly as a run
does (:func:`~workbench.engine.scenario_registry.registry_over`: built-ins for names no
server offers, the scenario's surface in front with its pins, the approval guard), with one
addition a long-lived gateway needs: a :class:`~workbench.gateway.held.HeldResolver` under
the overlay, so a tool first offered after the start is held back until approved.

What the host is shown (:meth:`Contract.visible`) is what the agent is shown in a run,
``registry.describe(manifest.tools)`` (curated title, description, parameter descriptions and
examples; the server's schemas and annotations), less the tools whose pin has drifted: a
run keeps showing the approved text and refuses the call, a gateway stops listing the tool
until it is approved again (and tells the host its list changed).

Example:
    >>> contract = Contract.open("config", "watch-house", "timekeeper")  # doctest: +SKIP
    >>> [spec.name for spec in contract.visible()]  # doctest: +SKIP
    ['get_current_time', 'echo']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.contracts.canonical import canonical_json
from workbench.contracts.config import ConfigTree
from workbench.contracts.manifest import AgentManifest
from workbench.contracts.scenario import ScenarioConfig
from workbench.errors import ConfigError, WorkbenchError
from workbench.tools.registry import ToolRegistry, ToolSpec

__all__ = ["Contract", "agent_of"]


def agent_of(tree: ConfigTree, scenario: ScenarioConfig, agent: str) -> AgentManifest:
    """The manifest of ``agent``, which must be in ``scenario``'s cast.

    Raises:
        ConfigError: it is not; the message lists the cast.
    """
    if agent not in scenario.cast:
        raise ConfigError(Path(tree.root) / "scenarios" / f"{scenario.name}.yaml", "cast",
                          f"agent {agent!r} is not in scenario {scenario.name!r}'s cast; "
                          f"give --agent one of: {', '.join(scenario.cast)}")
    return tree.agents[agent]


class Contract:
    """One agent's grants over one scenario's registry.

    Args:
        root: The config directory.
        scenario: The scenario.
        manifest: The agent's manifest (its ``tools`` are the grants).
        registry: The scenario's registry (the approval guard installed).
        held: The resolver holding back new tools (None: the scenario has no servers).

    Attributes:
        overlay: The scenario's curated surface in front of the servers, or None.
    """

    def __init__(self, root: Path, scenario: ScenarioConfig, manifest: AgentManifest,
                 registry: ToolRegistry, held: Any = None):
        from workbench.surface.overlay import CuratedResolver

        self.root = root
        self.scenario = scenario
        self.manifest = manifest
        self.registry = registry
        self.held = held
        resolver = registry.resolver
        self.overlay = resolver if isinstance(resolver, CuratedResolver) else None
        self._wire: list[dict[str, Any]] = []
        self._wire_text = ""

    @classmethod
    def open(cls, config: str | Path | ConfigTree, scenario: str, agent: str, *,
             approver: Any = None) -> Contract:
        """Load ``agent``'s contract in ``scenario`` and start the scenario's servers.

        Args:
            config: The config directory (or a loaded tree).
            scenario: The scenario's name.
            agent: An agent of the scenario's cast.
            approver: ``approver(ApprovalRequest) -> bool`` for calls that need a yes
                (None refuses them).

        Raises:
            ConfigError: no such scenario, or the agent is not in its cast.
            ToolCallError: a server could not be started (``transport_error``).
        """
        tree = config if isinstance(config, ConfigTree) else ConfigTree.load(config)
        spec = tree.scenario(scenario)
        manifest = agent_of(tree, spec, agent)
        root = Path(tree.root)
        if not spec.servers:
            from workbench.engine.scenario_registry import scenario_registry

            return cls(root, spec, manifest, scenario_registry(root, spec, approver=approver))
        from workbench.engine.scenario_registry import registry_over
        from workbench.gateway.held import HeldResolver
        from workbench.tools.mcp.env import resolver_for_servers

        # As scenario_registry starts them: from the project directory, the config's parent.
        resolver = resolver_for_servers(spec.servers, cwd=root.resolve().parent)
        try:
            surface = None if spec.surface is None else root / spec.surface
            held = HeldResolver(resolver, surface)
            registry = registry_over(root, spec, held, approver=approver)
            contract = cls(root, spec, manifest, registry, held)
            contract.visible()  # pins what is offered now (trust on first use, as a run)
        except BaseException:
            resolver.close()
            raise
        return contract

    # -- what the host sees -------------------------------------------------------------
    def visible(self) -> list[ToolSpec]:
        """The tools the host is shown, in the manifest's order.

        Granted, offered and exposed by the surface (``registry.describe``), less those
        whose pin has drifted (changed, moved to another server) and those held back.
        """
        shown = []
        for spec in self.registry.describe(self.manifest.tools):
            if self.overlay is not None and spec.run is None and \
                    self.overlay.drift(spec.name) is not None:
                continue
            shown.append(spec)
        return shown

    def wire(self) -> list[dict[str, Any]]:
        """:meth:`visible` in MCP ``tools/list`` form, as last computed by :meth:`relist`."""
        return self._wire

    def relist(self) -> bool:
        """Compute what the host is shown now; True when it differs from the last time."""
        wire = [spec.to_wire() for spec in self.visible()]
        text = canonical_json(wire)
        changed = text != self._wire_text
        self._wire, self._wire_text = wire, text
        return changed

    def names(self) -> list[str]:
        """The names the host is shown (as last computed)."""
        return [tool["name"] for tool in self._wire]

    # -- approvals made while the gateway runs ----------------------------------------------
    def take_new_pins(self) -> list[str]:
        """Apply what ``pins.json`` approves now; returns the tools it released, sorted.

        A person approves a changed or new tool with ``workbench surface approve``, which
        writes ``pins.json``. A drifted tool whose new pin matches exactly what its server
        offers now (and names that server) is re-pinned in the overlay; a held tool with
        such a pin is released. A pin that does not match what is offered changes nothing.

        Raises:
            ConfigError: ``pins.json`` is not a pins file (the pins in force stay).
        """
        held = self.held
        if held is None or not held.reload_pins():
            return []
        released = []
        overlay = self.overlay
        for name in sorted(self.manifest.tools):
            entry = held.pin_of(name)
            if entry is None:
                continue
            if held.is_held(name):
                continue  # the pin does not match what is offered: still held
            if overlay is not None and self._matches(entry, name):
                try:
                    if overlay.drift(name) is not None or name not in held.started_with:
                        overlay.approve(name, save=False)
                        released.append(name)
                except WorkbenchError:
                    continue  # offered by nothing now: nothing to approve
        return released

    def _matches(self, entry: Mapping[str, Any], name: str) -> bool:
        from workbench.surface.pins import fingerprint

        spec = self.held.inner.get_spec(name) if self.held is not None else None
        if spec is None:
            return False
        try:
            owner = str(self.held.connection_for(name).name)
        except (AttributeError, WorkbenchError):
            return False
        return entry.get("fingerprint") == fingerprint(spec) and entry.get("server") == owner

    # -- the servers ----------------------------------------------------------------------
    def server_names(self) -> list[str]:
        """The scenario's servers, by name, in priority order."""
        return [server.name for server in self.scenario.servers]

    @property
    def connections(self) -> list[Any]:
        """The live MCP connections (empty for an in-process scenario)."""
        return self.held.connections if self.held is not None else []

    def close(self) -> None:
        """Stop the scenario's servers (idempotent)."""
        close = getattr(self.registry.resolver, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        return (f"<Contract {self.manifest.name} in {self.scenario.name}: "
                f"{len(self._wire)} tools shown>")
