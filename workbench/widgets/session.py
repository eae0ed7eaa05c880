"""The state every widget of one workbench shares: config, live manifests, registries.

Widgets never keep their own copy of a manifest or a registry. The editors write the
current, valid manifest into :attr:`Session.manifests` as the user types, and the runner
reads from the same dict when Run is pressed, so an edit in one widget is exactly what
the next run uses. Saving to disk is a separate, explicit step.

Registries: ``in-process`` is the shared registry given at construction (the built-ins
by default). ``MCP`` is built on first use with the ``MCP_ORACLE=1`` gate and kept, so
its server session stays open across runs (spawning a server per run costs over a
second); :meth:`Session.close` shuts it down.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.contracts.config import ConfigTree
from workbench.contracts.manifest import AgentManifest
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

    def registry_for(self, transport: str) -> ToolRegistry:
        """The registry a run over ``transport`` (one of :data:`TRANSPORTS`) goes through.

        Raises:
            ValueError: unknown transport.
            MissingDependency: the MCP extra is not installed.
        """
        if transport == "in-process":
            return self.registry
        if transport == "MCP":
            if self._mcp_registry is None:
                from workbench.tools.builtins import default_tool_registry

                self._mcp_registry = default_tool_registry(env=self._mcp_env)
            return self._mcp_registry
        raise ValueError(f"unknown transport {transport!r}; choose one of {TRANSPORTS}")

    def known_tools(self) -> list[str]:
        """Every tool a grant can name: in-process, plus MCP ones once MCP is in use."""
        names = set(self.registry.known_tools())
        if self._mcp_registry is not None:
            names.update(self._mcp_registry.known_tools())
        return sorted(names)

    def describe_tool(self, name: str) -> str:
        """A tool's description as agents read it ("" when no registry knows it)."""
        for registry in (self.registry, self._mcp_registry):
            if registry is not None:
                specs = registry.describe([name])
                if specs:
                    return specs[0].description
        return ""

    def close(self) -> None:
        """Shut down the MCP registry's server sessions, if any were opened."""
        registry, self._mcp_registry = self._mcp_registry, None
        close = getattr(getattr(registry, "resolver", None), "close", None)
        if callable(close):
            close()

    def __repr__(self) -> str:
        mcp = "open" if self._mcp_registry is not None else "not started"
        return f"Session(root={str(self.root)!r}, agents={len(self.manifests)}, mcp={mcp})"
