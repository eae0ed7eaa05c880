"""A config directory as data that travels with a task, with a variant's overrides applied.

Workers need no shared disk: a :class:`ConfigBundle` holds the bytes of every manifest,
scenario and surface file of a config directory (a few kilobytes), and
:meth:`ConfigBundle.materialize` writes them, overridden, into a directory on the worker.
Overrides are applied to the YAML data *before* validation, so a bad ``--set`` is reported
like any config error: the file, the key path and what is allowed.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.contracts.canonical import canonical_json
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
        data.update(self._edited(overrides, surface))
        _write(root, data)
        return root

    def check(self, directory: str | Path, overrides: tuple[Any, ...] = (),
              surface: str | None = None) -> None:
        """Check one variant (see :meth:`check_variants`); ``directory`` is not used."""
        from workbench.sweeps.grid import Variant

        self.check_variants([Variant(0, tuple(overrides), surface)])

    def check_variants(self, variants: Iterable[Any], config: str | Path = "config") -> None:
        """Load every variant's config as a run would, before any run starts.

        Each edited file goes through its own loader (``load_manifest``,
        ``load_scenario``: the checks ``workbench validate`` makes), once per distinct
        content; the whole tree is loaded once per distinct value of what its cross-file
        checks read (a scenario's ``cast`` and ``surface``). So a thousand values of one
        field cost a thousand small loads, not a thousand config trees.

        Args:
            variants: The grid (any iterable of :class:`~workbench.sweeps.grid.Variant`).
            config: The config directory as the user named it, for messages.

        Raises:
            ConfigError: ``--set KEY`` (or ``--surface``) and the loader's own problem,
                naming the file it lands in; never a private temporary path.
        """
        loaded: dict[tuple[str, bytes], Any] = {}
        shapes_seen: set[str] = set()
        docs: dict[str, Any] = {}
        scenario_file = f"scenarios/{self.scenario}.yaml"
        with tempfile.TemporaryDirectory(prefix="workbench-sweep-check-") as tmp:
            scratch = Path(tmp)
            for variant in variants:
                try:
                    edited = self._edited(variant.overrides, variant.surface, docs)
                    for rel, content in edited.items():
                        if (rel, content) not in loaded:
                            loaded[rel, content] = _load_one(scratch / "files", rel, content)
                    scenario = loaded.get((scenario_file, edited.get(scenario_file, b"")))
                    shape = self._shape(edited, scenario)
                    if shape not in shapes_seen:
                        root = scratch / f"tree{len(shapes_seen)}"
                        _write(root, {**self.files, **edited})
                        tree = ConfigTree.load(root)
                        tree.cast_of(tree.scenario(self.scenario))
                        shutil.rmtree(root)
                        shapes_seen.add(shape)
                except ConfigError as exc:
                    raise self._blame(exc, variant, scratch, str(config)) from None

    def _edited(self, overrides: tuple[Any, ...], surface: str | None,
                docs: dict[str, Any] | None = None) -> dict[str, bytes]:
        """The files ``overrides`` and ``surface`` change, as their new bytes.

        ``docs`` caches each file's parsed YAML between calls (it is copied, never changed).
        """
        scenario_file = f"scenarios/{self.scenario}.yaml"
        edits: dict[str, dict[str, Any]] = {}
        for override in overrides:
            file, path = self._target(override.key, self.files)
            edits.setdefault(file, {})[path] = override.value
        if surface is not None:
            edits.setdefault(scenario_file, {})["surface"] = f"surfaces/{self.extra[surface]}"
        out = {}
        for file, changes in edits.items():
            if docs is None:
                doc = yaml.safe_load(self.files[file].decode("utf-8")) or {}
            else:
                if file not in docs:
                    docs[file] = yaml.safe_load(self.files[file].decode("utf-8")) or {}
                doc = copy.deepcopy(docs[file])
            for path, value in changes.items():
                _set_path(doc, path.split("."), value, file)
            out[file] = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode()
        return out

    def _shape(self, edited: Mapping[str, bytes], loaded: Any) -> str:
        """What ConfigTree's cross-file checks read of a variant: the cast and surface.

        Agents' names are fixed by their files (each file's own load checks that), so the
        scenario's ``cast`` and ``surface`` (from its load, ``loaded``) are all that can
        change between variants.
        """
        if f"scenarios/{self.scenario}.yaml" not in edited:
            return ""
        return json.dumps([list(loaded.cast), loaded.surface])

    def _blame(self, exc: ConfigError, variant: Any, scratch: Path,
               config: str) -> ConfigError:
        """``exc`` (from a scratch copy) restated as the --set or --surface that caused it.

        The problem keeps the loader's words, with the scratch copy's paths put back as
        the user's config directory.
        """
        rel, problem = exc.path, exc.problem
        for base in sorted([scratch / "files", *scratch.glob("tree*")], reverse=True):
            problem = problem.replace(str(base), config)
            if Path(exc.path).is_relative_to(base):
                rel = Path(exc.path).relative_to(base).as_posix()
        shown = f"{config.rstrip('/')}/{rel}"
        for override in variant.overrides:
            try:
                file, path = self._target(override.key, self.files)
            except ConfigError:
                continue
            if file == rel and _overlaps(path, exc.key):
                inside = f"{exc.key}: " if exc.key and exc.key != path else ""
                return ConfigError("--set", override.key, f"{inside}{problem} (the value "
                                   f"{canonical_json(override.value)} for {shown})")
        if (variant.surface is not None and exc.key == "surface") or rel.startswith(
                "surfaces/_sweep"):
            return ConfigError("--surface", str(variant.surface), problem)
        where = f"{shown}: {exc.key}: " if exc.key else f"{shown}: "
        return ConfigError("--set", "", f"the variant {variant.label!r} makes {where}"
                                        f"{problem}")

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

def _overlaps(path: str, key: str) -> bool:
    """Does an override of ``path`` reach the field ``key`` (or ``key`` contain it)?"""
    if not key or path == key:
        return True
    return key.startswith((f"{path}.", f"{path}[")) or path.startswith(f"{key}.")


def _write(root: Path, data: Mapping[str, bytes]) -> None:
    for rel, content in data.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


def _load_one(scratch: Path, rel: str, content: bytes) -> Any:
    """Load one edited file with its own loader (a manifest or a scenario)."""
    from workbench.contracts.manifest import load_manifest
    from workbench.contracts.scenario import load_scenario

    target = scratch / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return (load_manifest if rel.startswith("agents/") else load_scenario)(target)


def _read_tree(base: Path, prefix: str, into: dict[str, bytes]) -> None:
    total = sum(len(v) for v in into.values())
    for path in sorted(base.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            # The size first: a huge file is refused without being read.
            total += path.stat().st_size
            content = path.read_bytes() if total <= MAX_BUNDLE_BYTES else b""
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
