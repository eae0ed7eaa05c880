"""A config directory as data that travels with a task, with a variant's overrides applied.

Workers need no shared disk: a :class:`ConfigBundle` holds the bytes of every manifest,
scenario and surface file of a config directory (a few kilobytes), and
:meth:`ConfigBundle.materialize` writes them, overridden, into a directory on the worker.
Overrides are applied to the YAML data *before* validation, so a bad ``--set`` is reported
like any config error: the file, the key path and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.contracts.config import ConfigTree
from workbench.errors import ConfigError

__all__ = ["ConfigBundle"]

#: The parts of a config directory a run reads.
_PARTS = ("agents", "scenarios", "surfaces")
#: A config bigger than this is not a config (a surface holding a data dump, a loop of links).
MAX_BUNDLE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ConfigBundle:
    """Every file of a config directory a run needs, by relative path.

    Attributes:
        scenario: The scenario the sweep runs.
        files: ``relative path -> bytes`` under the config directory.
        extra: Surfaces given with ``--surface``, by the name they get under ``surfaces/``.
    """

    scenario: str
    files: Mapping[str, bytes]
    extra: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def snapshot(cls, root: str | Path, scenario: str,
                 surfaces: tuple[str, ...] | list[str] = ()) -> ConfigBundle:
        """Read ``root`` (and each ``--surface`` directory) into a bundle.

        Raises:
            ConfigError: the directory, a surface or the scenario is missing.
        """
        root = Path(root)
        if not root.is_dir():
            raise ConfigError(root, "", "no such config directory; give --config DIR "
                                        "(a directory with agents/ and scenarios/)")
        files: dict[str, bytes] = {}
        for part in _PARTS:
            base = root / part
            if base.is_dir():
                _read_tree(base, f"{part}/", files)
        extra: dict[str, str] = {}
        for index, surface in enumerate(surfaces):
            directory = Path(surface)
            if not (directory / "tools.json").is_file():
                raise ConfigError(surface, "--surface", "not a surface directory (it needs a "
                                                        "tools.json); see `workbench surface "
                                                        "import`")
            name = f"_sweep{index}-{directory.resolve().name}"
            _read_tree(directory, f"surfaces/{name}/", files)
            extra[surface] = name
        bundle = cls(scenario, files, extra)
        ConfigTree.load(root).scenario(scenario)  # fail here, before anything is dispatched
        return bundle

    def materialize(self, directory: str | Path, overrides: tuple[Any, ...] = (),
                    surface: str | None = None) -> Path:
        """Write the bundle into ``directory`` with ``overrides`` applied; returns it.

        Raises:
            ConfigError: an override names a field or agent that does not exist, or its
                value is not allowed there (reported by the normal loaders).
        """
        root = Path(directory)
        data = dict(self.files)
        scenario_file = f"scenarios/{self.scenario}.yaml"
        edits: dict[str, dict[str, Any]] = {}
        for override in overrides:
            file, path = self._target(override.key, data)
            edits.setdefault(file, {})[path] = override.value
        if surface is not None:
            edits.setdefault(scenario_file, {})["surface"] = f"surfaces/{self.extra[surface]}"
        for file, changes in edits.items():
            doc = yaml.safe_load(data[file].decode("utf-8")) or {}
            for path, value in changes.items():
                _set_path(doc, path.split("."), value, file)
            data[file] = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode()
        for rel, content in data.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        return root

    def check(self, directory: str | Path, overrides: tuple[Any, ...] = (),
              surface: str | None = None) -> None:
        """Materialize into ``directory`` and load it: a bad variant fails here, at once."""
        root = self.materialize(directory, overrides, surface)
        tree = ConfigTree.load(root)
        tree.cast_of(tree.scenario(self.scenario))

    def _target(self, key: str, data: Mapping[str, bytes]) -> tuple[str, str]:
        """Which file and which key path inside it ``key`` overrides."""
        head, _, rest = key.partition(".")
        if head == "agents":
            agent, _, field_path = rest.partition(".")
            file = f"agents/{agent}.yaml"
            if not agent or not field_path:
                raise ConfigError("--set", key, "an agent override is agents.NAME.FIELD, "
                                                "e.g. agents.fortune-teller.tools=[]")
            if file not in data:
                known = sorted(p[len("agents/"):-len(".yaml")] for p in data
                               if p.startswith("agents/") and p.endswith(".yaml"))
                raise ConfigError("--set", key, f"no agent {agent!r}; known: "
                                                f"{', '.join(known) or 'none'}")
            return file, field_path
        if head == "scenario":
            key = rest
        return f"scenarios/{self.scenario}.yaml", key


def _read_tree(base: Path, prefix: str, into: dict[str, bytes]) -> None:
    total = sum(len(v) for v in into.values())
    for path in sorted(base.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            content = path.read_bytes()
            total += len(content)
            if total > MAX_BUNDLE_BYTES:
                raise ConfigError(base, "", f"more than {MAX_BUNDLE_BYTES // 2**20} MiB of "
                                            f"config files; a sweep ships its config to "
                                            f"every worker, keep data files elsewhere")
            into[prefix + path.relative_to(base).as_posix()] = content


def _set_path(doc: Any, parts: list[str], value: Any, file: str) -> None:
    node = doc
    for depth, part in enumerate(parts[:-1]):
        child = node.get(part) if isinstance(node, dict) else None
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            where = ".".join(parts[: depth + 1])
            raise ConfigError(file, where, f"is not a mapping, so --set cannot go inside it "
                                           f"({'.'.join(parts)})")
        node = child
    if not isinstance(node, dict):
        raise ConfigError(file, ".".join(parts), "cannot be set: its parent is not a mapping")
    node[parts[-1]] = value
