"""The state every widget of one workbench shares: config, live manifests, registries.

Widgets never keep their own copy of a manifest or a registry. The editors write the
current, valid manifest into :attr:`Session.manifests` as the user types, and the runner
reads from the same dict when Run is pressed, so an edit in one widget is exactly what
the next run uses. Saving to disk is a separate, explicit step.

Registries: ``in-process`` is the shared registry given at construction (the built-ins
by default). ``MCP`` is built on first use with the ``MCP_ORACLE=1`` gate and kept, so
its server session stays open across runs (spawning a server per run costs over a
second). A scenario that names its own ``servers`` always runs over them: their
connections are kept per scenario, and when it names a curated ``surface`` a fresh
overlay is read from the surface directory for every run, so an edit made in the
SurfaceEditor is what the next run's agents read. :meth:`Session.close` shuts every
connection down.

Every registry with tools from a server gets an approval guard: a call whose safety
rests on an untrusted server's hints goes to :attr:`Session.approver` (the runner sets
it from its *Approve* field before each run), and is refused (``not approved``) unless
approved. Without approvals nothing unconfirmed runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from workbench.contracts.config import ConfigTree
from workbench.contracts.manifest import AgentManifest
from workbench.contracts.scenario import ScenarioConfig
from workbench.tools.registry import ToolRegistry

__all__ = ["TRANSPORTS", "GrantOption", "Session"]

#: Transport choices offered by the runner, in display order.
TRANSPORTS = ("in-process", "MCP")


class GrantOption(NamedTuple):
    """A tool an agent of a scenario could be granted, and where it comes from.

    Attributes:
        tool: The tool's name.
        group: ``in-process``, a server's name, ``surface code`` or ``not offered``.
        hidden: The scenario's surface hides it: a grant would be refused at run time.
    """

    tool: str
    group: str
    hidden: bool = False


class Session:
    """Config, live manifests and registries shared by the widgets of one workbench.

    Args:
        config: The loaded config tree.
        registry: The in-process registry (``default_tool_registry()`` when None).
        mcp_env: Environment for the MCP registry (``{"MCP_ORACLE": "1"}`` when None).

    Attributes:
        config: The config tree as loaded (its manifests are the saved versions).
        manifests: Live manifests by agent name: what the next run uses.
        saved: Manifests as last loaded from or saved to disk, by agent name.
        registry: The shared in-process registry.

    Example:
        >>> s = Session.from_config("config")  # doctest: +SKIP
        >>> s.manifests["fortune-teller"].tools  # doctest: +SKIP
        ('oracle',)
    """

    def __init__(self, config: ConfigTree, registry: ToolRegistry | None = None,
                 mcp_env: dict[str, str] | None = None):
        if registry is None:
            from workbench.tools.defaults import default_tool_registry

            registry = default_tool_registry(env={})
        self.config = config
        self.manifests: dict[str, AgentManifest] = dict(config.agents)
        self.saved: dict[str, AgentManifest] = dict(config.agents)
        self.registry = registry
        self._mcp_env = {"MCP_ORACLE": "1"} if mcp_env is None else dict(mcp_env)
        self._mcp_registry: ToolRegistry | None = None
        self._server_resolvers: dict[str, Any] = {}
        #: ``approver(ApprovalRequest) -> bool`` for calls that need confirmation.
        self.approver: Callable[[Any], bool] = _refuse_all
        from workbench.widgets.history import CallHistory

        #: Every call made in this session, by a run or by hand.
        self.history = CallHistory()

    @classmethod
    def from_config(cls, root: str | Path = "config", registry: ToolRegistry | None = None,
                    **kwargs: Any) -> Session:
        """Load the config directory ``root`` and start a session on it.

        Raises:
            ConfigError: the config does not load (the message names file and key).
        """
        return cls(ConfigTree.load(root), registry, **kwargs)

    @property
    def root(self) -> Path:
        """The config directory."""
        return self.config.root

    def manifest_path(self, name: str) -> Path:
        """Where the manifest of agent ``name`` is saved."""
        return self.config.root / "agents" / f"{name}.yaml"

    def registry_for(self, transport: str, scenario: ScenarioConfig | None = None
                     ) -> ToolRegistry:
        """The registry a run goes through.

        Args:
            transport: One of :data:`TRANSPORTS`; ignored when ``scenario`` names servers.
            scenario: The scenario about to run; its ``servers`` and ``surface`` win.

        Raises:
            ValueError: unknown transport.
            ToolCallError: a scenario's server cannot be started (``transport_error``).
            MissingDependency: the MCP extra is not installed.
        """
        if scenario is not None and scenario.servers:
            return self._scenario_registry(scenario)
        if transport == "in-process":
            return self.registry
        if transport == "MCP":
            if self._mcp_registry is None:
                from workbench.tools.defaults import default_tool_registry

                registry = default_tool_registry(env=self._mcp_env)
                self._guard(registry)
                self._mcp_registry = registry
            return self._mcp_registry
        raise ValueError(f"unknown transport {transport!r}; choose one of {TRANSPORTS}")

    def _scenario_registry(self, scenario: ScenarioConfig) -> ToolRegistry:
        from workbench.engine.scenario_registry import registry_over

        resolver = self._server_resolvers.get(scenario.name)
        if resolver is None:
            from workbench.tools.mcp.env import resolver_for_servers

            # Commands like `node external/...` are relative to the project directory,
            # the parent of the config directory, not to the notebook's directory.
            resolver = resolver_for_servers(scenario.servers, cwd=self.root.resolve().parent)
            self._server_resolvers[scenario.name] = resolver
        # A fresh registry per run: the surface may have been edited since the last one.
        return registry_over(self.root, scenario, resolver, approver=self._ask)

    def _guard(self, registry: ToolRegistry) -> None:
        from workbench.engine.scenario_registry import guard_registry

        guard_registry(registry, self._ask)

    def _ask(self, request: Any) -> bool:
        # Looked up per call, so the runner can change the approver between runs.
        return self.approver(request)

    def known_tools(self) -> list[str]:
        """Every tool a grant can name: in-process, plus MCP ones once their servers run."""
        names = set(self.registry.known_tools())
        if self._mcp_registry is not None:
            names.update(self._mcp_registry.known_tools())
        for resolver in self._server_resolvers.values():
            names.update(resolver.tool_names())
        return sorted(names)

    def grant_options(self, scenario: ScenarioConfig | str | None = None) -> list[GrantOption]:
        """The tools an agent of ``scenario`` can really be granted, grouped by origin.

        A scenario without servers offers the in-process tools (and the built-in MCP
        server's once it runs). A scenario with servers offers the built-ins no server
        shadows and its servers' tools: read from its surface's pins (no server is
        started to list them), plus whatever its servers advertised since they were
        started. A tool its surface does not list is offered as ``hidden``: granting it
        only earns ``hidden by curation`` at run time. Sorted by group, then name.
        """
        if isinstance(scenario, str):
            scenario = self.config.scenario(scenario)
        found: dict[str, GrantOption] = {}
        if scenario is None or not scenario.servers:
            for name in self.registry.known_tools():
                found[name] = GrantOption(name, "in-process")
            if self._mcp_registry is not None:
                for name in self._mcp_registry.known_tools():
                    found.setdefault(name, GrantOption(name, "MCP (built-in server)"))
            return _sorted(found)
        curated: set[str] | None = None
        served: dict[str, str] = {}
        if scenario.surface is not None:
            from workbench.contracts.surface import load_pins, load_tools

            surface = self.root / scenario.surface
            entries = load_tools(surface)
            curated = {t["name"] for t in entries}
            served.update((p["name"], p["server"]) for p in load_pins(surface))
            served.update((t["name"], "surface code") for t in entries
                          if "code" in t and t["name"] not in served)
        resolver = self._server_resolvers.get(scenario.name)
        if resolver is not None:
            for name in resolver.tool_names():
                connection = resolver.connection_for(name)
                served.setdefault(name, getattr(connection, "name", "server"))
        from workbench.tools.builtins import BUILTIN_TOOLS

        for tool in BUILTIN_TOOLS:
            if tool["name"] not in served:
                found[tool["name"]] = GrantOption(tool["name"], "in-process")
        for name, group in served.items():
            hidden = curated is not None and name not in curated
            found[name] = GrantOption(name, group, hidden)
        return _sorted(found)

    def lists_unknown(self, scenario: ScenarioConfig | str | None) -> bool:
        """Whether ``scenario``'s servers may offer tools :meth:`grant_options` cannot list yet.

        True for a scenario with servers, no surface (whose pins would list them) and no
        run yet (whose connections would).
        """
        if isinstance(scenario, str):
            scenario = self.config.scenario(scenario)
        return bool(scenario is not None and scenario.servers and scenario.surface is None
                    and scenario.name not in self._server_resolvers)

    def describe_tool(self, name: str) -> str:
        """A tool's description as the server or registry gives it ("" when none knows it)."""
        for registry in (self.registry, self._mcp_registry):
            if registry is not None:
                specs = registry.describe([name])
                if specs:
                    return specs[0].description
        for resolver in self._server_resolvers.values():
            spec = resolver.get_spec(name)
            if spec is not None:
                return spec.description
        return ""

    def close(self) -> None:
        """Shut down every MCP server session the session opened."""
        registry, self._mcp_registry = self._mcp_registry, None
        resolvers = [getattr(registry, "resolver", None), *self._server_resolvers.values()]
        self._server_resolvers = {}
        for resolver in resolvers:
            close = getattr(resolver, "close", None)
            if callable(close):
                close()

    def __repr__(self) -> str:
        mcp = "open" if self._mcp_registry is not None else "not started"
        # The directory's name, not its path: a repr ends up in saved notebooks.
        return f"Session(root={self.root.name!r}, agents={len(self.manifests)}, mcp={mcp})"


def _sorted(found: dict[str, GrantOption]) -> list[GrantOption]:
    # In-process first, then servers by name; hidden tools after the visible ones.
    return sorted(found.values(), key=lambda o: (o.group != "in-process", o.group, o.hidden,
                                                 o.tool))


def _refuse_all(_request: Any) -> bool:
    """The approver until someone approves something: nothing unconfirmed runs."""
    return False
