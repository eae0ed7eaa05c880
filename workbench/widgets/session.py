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
from typing import Any

from workbench.contracts.config import ConfigTree
from workbench.contracts.manifest import AgentManifest
from workbench.contracts.scenario import ScenarioConfig
from workbench.tools.registry import ToolRegistry

__all__ = ["TRANSPORTS", "Session"]

#: Transport choices offered by the runner, in display order.
TRANSPORTS = ("in-process", "MCP")


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
            from workbench.tools.builtins import default_tool_registry

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
                from workbench.tools.builtins import default_tool_registry

                registry = default_tool_registry(env=self._mcp_env)
                self._guard(registry)
                self._mcp_registry = registry
            return self._mcp_registry
        raise ValueError(f"unknown transport {transport!r}; choose one of {TRANSPORTS}")

    def _scenario_registry(self, scenario: ScenarioConfig) -> ToolRegistry:
        from workbench.engine.tooling import registry_over

        resolver = self._server_resolvers.get(scenario.name)
        if resolver is None:
            from workbench.tools.mcp_client import resolver_for_servers

            # Commands like `node external/...` are relative to the project directory,
            # the parent of the config directory, not to the notebook's directory.
            resolver = resolver_for_servers(scenario.servers, cwd=self.root.resolve().parent)
            self._server_resolvers[scenario.name] = resolver
        # A fresh registry per run: the surface may have been edited since the last one.
        return registry_over(self.root, scenario, resolver, approver=self._ask)

    def _guard(self, registry: ToolRegistry) -> None:
        from workbench.engine.tooling import guard_registry

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
        return f"Session(root={str(self.root)!r}, agents={len(self.manifests)}, mcp={mcp})"


def _refuse_all(_request: Any) -> bool:
    """The approver until someone approves something: nothing unconfirmed runs."""
    return False
