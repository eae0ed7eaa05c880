"""A configuration directory, loaded and cross-validated as one tree.

Layout::

    config/agents/<name>.yaml       agent manifests
    config/scenarios/<name>.yaml    scenarios
    config/surfaces/<name>/         curated toolsets (tools.json, policy.json)

Cross-validation: every cast member exists, every granted tool is known to the registry
or is expected from an MCP server that a scenario casting the agent names, and a
scenario's surface loads and holds no ``code`` entry it may not use (see
:mod:`workbench.surface.code`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from workbench._files import require_dir
from workbench.contracts._yaml import line_of, read_yaml
from workbench.contracts.manifest import AgentManifest, load_manifest
from workbench.contracts.scenario import ScenarioConfig, load_scenario
from workbench.errors import ConfigError

__all__ = ["ConfigTree"]


@dataclass
class ConfigTree:
    """Every manifest and scenario of one config directory.

    Attributes:
        root: The directory.
        agents: Manifests by name.
        scenarios: Scenarios by name.
    """

    root: Path
    agents: dict[str, AgentManifest] = field(default_factory=dict)
    scenarios: dict[str, ScenarioConfig] = field(default_factory=dict)
    _broken: set[str] = field(default_factory=set, repr=False)

    @classmethod
    def load(cls, root: str | Path = "config") -> ConfigTree:
        """Load ``root`` and cross-validate it.

        Raises:
            ConfigError: the first problem found (use :meth:`problems` to see all).
        """
        tree, problems = cls._collect(Path(root))
        if problems:
            raise problems[0]
        return tree

    @classmethod
    def problems(cls, root: str | Path = "config", known_tools: Iterable[str] | None = None
                 ) -> list[ConfigError]:
        """Every problem in ``root``, without stopping at the first.

        Args:
            root: The config directory.
            known_tools: When given, grants of tools outside this set are problems too
                (unless a scenario casting the agent names MCP servers).
        """
        return cls.inspect(root, known_tools)[1]

    @classmethod
    def inspect(cls, root: str | Path = "config", known_tools: Iterable[str] | None = None
                ) -> tuple[ConfigTree, list[ConfigError]]:
        """What loads of ``root``, and every problem found: for tools that report all."""
        tree, problems = cls._collect(Path(root))
        if known_tools is not None:
            problems.extend(tree.check_tools(known_tools))
        return tree, problems

    @classmethod
    def _collect(cls, root: Path) -> tuple[ConfigTree, list[ConfigError]]:
        require_dir(root, "a config directory with agents/ and scenarios/ inside")
        tree = cls(root=root)
        problems: list[ConfigError] = []
        for path in sorted((root / "agents").glob("*.yaml")):
            try:
                manifest = load_manifest(path)
                tree.agents[manifest.name] = manifest
            except ConfigError as exc:
                problems.extend(exc.problems)
                tree._broken.add(path.stem)
        for path in sorted((root / "scenarios").glob("*.yaml")):
            try:
                scenario = load_scenario(path)
            except ConfigError as exc:
                problems.extend(exc.problems)
                continue
            tree.scenarios[scenario.name] = scenario
            problems.extend(tree._check_cast(scenario, path))
        return tree, problems

    def _check_cast(self, scenario: ScenarioConfig, path: Path) -> list[ConfigError]:
        problems = []
        text = None
        for i, member in enumerate(scenario.cast):
            # An agent whose file failed to load is reported once, by its own file.
            if member not in self.agents and member not in self._broken:
                if text is None:
                    text = read_yaml(path)[1]
                known = ", ".join(sorted(self.agents)) or "none"
                problems.append(ConfigError(
                    path, f"cast[{i}]",
                    f"no agent named {member!r} in {self.root / 'agents'}; known agents: {known}",
                    line_of(text, ("cast", i)),
                ))
        if scenario.surface is not None and not (self.root / scenario.surface).is_dir():
            problems.append(ConfigError(
                path, "surface", f"{scenario.surface!r} is not a directory under {self.root}",
                line_of(read_yaml(path)[1], ("surface",)),
            ))
        elif scenario.surface is not None:
            # Code the surface may not load is refused here too, before any run imports it.
            from workbench.contracts.surface import surface_code_problems

            problems.extend(surface_code_problems(self.root / scenario.surface))
        return problems

    def check_tools(self, known_tools: Iterable[str]) -> list[ConfigError]:
        """Grants of tools that nothing provides, one problem each."""
        known = set(known_tools)
        served = {a for s in self.scenarios.values() if s.servers for a in s.cast}
        problems = []
        for name, manifest in sorted(self.agents.items()):
            if name in served:
                continue  # its tools may come from the scenario's MCP servers
            path = self.root / "agents" / f"{name}.yaml"
            unknown = [(i, tool) for i, tool in enumerate(manifest.tools) if tool not in known]
            if not unknown:
                continue
            text = read_yaml(path)[1]  # once per file: N problems cost N lookups, not N reads
            listed = ", ".join(sorted(known)) or "none"
            for i, tool in unknown:
                problems.append(ConfigError(
                    path, f"tools[{i}]",
                    f"{tool!r} is granted but no registered tool has that name; known "
                    f"tools: {listed} (or name the MCP server that provides it in the "
                    f"scenario's servers)",
                    line_of(text, ("tools", i)),
                ))
        return problems

    def scenario(self, name: str) -> ScenarioConfig:
        """The scenario called ``name``.

        Raises:
            ConfigError: there is none; the message lists the ones there are.
        """
        try:
            return self.scenarios[name]
        except KeyError:
            known = ", ".join(sorted(self.scenarios)) or "none"
            raise ConfigError(self.root / "scenarios", "", f"no scenario named {name!r}; "
                              f"known scenarios: {known}") from None

    def cast_of(self, scenario: ScenarioConfig) -> list[AgentManifest]:
        """The manifests of ``scenario``'s cast, in acting order."""
        return [self.agents[name] for name in scenario.cast]
