"""The grid of a sweep: seeds times variants, each variant a set of overrides.

A variant changes a scenario's data, never its code: ``--set KEY=VALUE`` overrides one
field of the scenario (``governor.max_ticks=50``) or of an agent's manifest
(``agents.fortune-teller.tools=[]``), and ``--surface DIR`` puts another curated surface in
front of the scenario's servers. The same key given twice makes two alternatives; different
keys (and surfaces) multiply, so ``--set a=1 --set a=2 --set b=x`` is a grid of two.

Example:
    >>> from workbench.sweeps.grid import build_variants, parse_seeds
    >>> parse_seeds("0-2,7")
    [0, 1, 2, 7]
    >>> [v.label for v in build_variants(["governor.max_ticks=2", "governor.max_ticks=3"])]
    ['governor.max_ticks=2', 'governor.max_ticks=3']
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from workbench.contracts.events import canonical_json
from workbench.errors import ConfigError

__all__ = ["Override", "Variant", "build_variants", "parse_seeds", "parse_set"]

#: The most seeds one ``--seeds`` range may name (a typo like ``0-9999999`` is refused).
MAX_SEEDS = 100_000


@dataclass(frozen=True)
class Override:
    """One ``KEY=VALUE``: a dotted key path and the value (parsed as YAML)."""

    key: str
    value: Any

    @property
    def text(self) -> str:
        """``key=value`` with the value in canonical JSON (stable across runs)."""
        return f"{self.key}={canonical_json(self.value)}" if not isinstance(
            self.value, str) else f"{self.key}={self.value}"


@dataclass(frozen=True)
class Variant:
    """One point of the grid (without its seed).

    Attributes:
        index: Position in the grid (the order rows are sorted by).
        overrides: What this variant sets.
        surface: A surface directory to use instead of the scenario's own, or None.
    """

    index: int
    overrides: tuple[Override, ...] = ()
    surface: str | None = None

    @property
    def label(self) -> str:
        """A readable name: the overrides and surface, or ``base``."""
        parts = [o.text for o in self.overrides]
        if self.surface is not None:
            parts.append(f"surface={self.surface}")
        return ", ".join(parts) or "base"

    @property
    def id(self) -> str:
        """A short file-name-safe id, stable for the same position and label."""
        digest = hashlib.sha256(self.label.encode()).hexdigest()[:8]
        return f"v{self.index:03d}-{digest}"


def parse_seeds(text: str) -> list[int]:
    """``"0-99"``, ``"1,5,7"``, ``"3"`` or a mix (``"0-2,7"``) -> sorted unique seeds.

    Raises:
        ConfigError: naming ``--seeds`` and the forms allowed.
    """
    allowed = "allowed: N, N-M or a comma-separated mix such as 0-9,42 (non-negative integers)"
    seeds: set[int] = set()
    for part in (p.strip() for p in str(text).split(",")):
        lo, sep, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi if sep else lo)
        except ValueError:
            raise ConfigError("--seeds", "", f"{part!r} is not a seed or range; {allowed}"
                              ) from None
        if first < 0 or last < first:
            raise ConfigError("--seeds", "", f"{part!r} is an empty or negative range; "
                                             f"{allowed}")
        if last - first + 1 + len(seeds) > MAX_SEEDS:
            raise ConfigError("--seeds", "", f"{text!r} names more than {MAX_SEEDS} seeds; "
                                             f"split the sweep")
        seeds.update(range(first, last + 1))
    return sorted(seeds)


def parse_set(text: str) -> Override:
    """``"governor.max_ticks=50"`` -> ``Override("governor.max_ticks", 50)``.

    The value is read as YAML, so ``[]``, ``[a, b]``, ``50``, ``true`` and plain words work.

    Raises:
        ConfigError: naming ``--set`` and what is allowed.
    """
    key, sep, raw = str(text).partition("=")
    key = key.strip()
    allowed = ("allowed: KEY=VALUE, KEY a dotted path such as governor.max_ticks or "
               "agents.NAME.tools, VALUE in YAML such as 50, [] or [oracle]")
    if not sep or not key or any(not part for part in key.split(".")):
        raise ConfigError("--set", "", f"{text!r} is not KEY=VALUE; {allowed}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise ConfigError("--set", key, f"value {raw!r} is not valid YAML "
                                        f"({getattr(exc, 'problem', exc)}); {allowed}") from None
    return Override(key, value)


def build_variants(sets: Iterable[str] = (), surfaces: Sequence[str] = ()) -> list[Variant]:
    """The grid: the product of each key's alternatives and of the surfaces, in given order."""
    axes: dict[str, list[Override]] = {}
    for item in sets:
        override = parse_set(item)
        axes.setdefault(override.key, []).append(override)
    choices = [axis for axis in axes.values()]
    surface_axis: list[str | None] = list(surfaces) or [None]
    variants = []
    for index, (combo, surface) in enumerate(
            itertools.product(itertools.product(*choices), surface_axis)):
        variants.append(Variant(index, tuple(combo), surface))
    return variants
