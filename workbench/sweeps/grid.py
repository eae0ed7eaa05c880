"""The grid of a sweep: seeds times variants, each variant a set of overrides.

A variant changes a scenario's data, never its code: ``--set KEY=VALUE`` overrides one
field of the scenario (``governor.max_ticks=50``) or of an agent's manifest
(``agents.fortune-teller.tools=[]``), and ``--surface DIR`` puts another curated surface in
front of the scenario's servers. The same key given twice makes two alternatives; different
keys (and surfaces) multiply, so ``--set a=1 --set a=2 --set b=x`` is a grid of two.

A grid is counted from its axes before any variant exists (at most :data:`MAX_VARIANTS`,
or ``WORKBENCH_SWEEP_MAX_VARIANTS``) and its variants are produced one at a time, so a
typo that multiplies into millions is one error, not a full memory.

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
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from workbench.contracts.canonical import canonical_json
from workbench.errors import ConfigError

__all__ = ["MAX_RUNS", "MAX_SEEDS", "MAX_SET_DEPTH", "MAX_VARIANTS", "VARIANTS_ENV", "Grid",
           "Override", "Variant", "build_variants", "max_variants", "parse_seeds",
           "parse_set", "variant_grid"]

#: The most seeds one ``--seeds`` range may name (a typo like ``0-9999999`` is refused).
MAX_SEEDS = 100_000
#: The most variants (grid points, before seeds) a sweep may have. Every variant is
#: validated up front, and each is a directory of runs: a thousand is far past a grid a
#: person reads, and a typo that multiplies axes (8 keys of 10 values: 10^8) is refused
#: from the axes' sizes. ``WORKBENCH_SWEEP_MAX_VARIANTS`` raises it.
MAX_VARIANTS = 1_000
#: The environment variable that changes :data:`MAX_VARIANTS`.
VARIANTS_ENV = "WORKBENCH_SWEEP_MAX_VARIANTS"
#: The most runs (seeds x variants) one sweep may have: as many as one ``--seeds`` range
#: may name, so splitting a sweep by variant never lets it grow past one seed range.
MAX_RUNS = MAX_SEEDS
#: How deeply a ``--set`` value may nest. A value replaces one config field, and fields
#: nest a few levels; past this it is a mistake (and PyYAML would recurse on it).
MAX_SET_DEPTH = 32
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # what the ledger's JSON carries as a number


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
    Integers beyond 64 bits and values nested past :data:`MAX_SET_DEPTH` are refused: no
    config field holds them.

    Raises:
        ConfigError: naming ``--set``, the key and what is allowed.
    """
    key, raw = _split_set(text)
    allowed = ("allowed: KEY=VALUE, KEY a dotted path such as governor.max_ticks or "
               "agents.NAME.tools, VALUE in YAML such as 50, [] or [oracle]")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise ConfigError("--set", key, f"value {raw!r} is not valid YAML "
                                        f"({getattr(exc, 'problem', exc)}); {allowed}") from None
    except RecursionError:
        value = None
        problem = "nested"
    else:
        problem = _value_problem(value)
    if problem == "nested":
        raise ConfigError("--set", key, f"the value is nested more than {MAX_SET_DEPTH} "
                                        f"levels deep; a config field holds a few")
    if problem:
        raise ConfigError("--set", key, problem)
    return Override(key, value)


def _split_set(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` -> ``(key, raw value)``, without reading the value."""
    key, sep, raw = str(text).partition("=")
    key = key.strip()
    if not sep or not key or any(not part for part in key.split(".")):
        raise ConfigError("--set", "", f"{text!r} is not KEY=VALUE; allowed: KEY=VALUE, KEY "
                                       f"a dotted path such as governor.max_ticks or "
                                       f"agents.NAME.tools, VALUE in YAML such as 50, [] or "
                                       f"[oracle]")
    return key, raw


def _value_problem(value: Any) -> str:
    """Why a parsed value cannot be a config field's ("nested", a sentence, or "")."""
    stack = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, bool):
            continue
        if isinstance(node, int) and not _INT_MIN <= node <= _INT_MAX:
            return (f"{str(node)[:24]}{'...' if len(str(node)) > 24 else ''} is beyond 64 "
                    f"bits; allowed: integers from {_INT_MIN} to {_INT_MAX}")
        if isinstance(node, dict | list):
            if level > MAX_SET_DEPTH:
                return "nested"
            children = list(node.keys()) + list(node.values()) if isinstance(node, dict) \
                else node
            stack.extend((child, level + 1) for child in children)
    return ""


def max_variants(env: Mapping[str, str] | None = None) -> int:
    """:data:`MAX_VARIANTS`, or the whole number >= 1 in ``WORKBENCH_SWEEP_MAX_VARIANTS``.

    Raises:
        ConfigError: the variable is set to something else.
    """
    raw = (os.environ if env is None else env).get(VARIANTS_ENV, "").strip()
    if not raw:
        return MAX_VARIANTS
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError("environment", VARIANTS_ENV, f"{raw!r} is not a whole number >= 1; "
                                                       f"unset it or give the most variants "
                                                       f"a sweep may have (default "
                                                       f"{MAX_VARIANTS:,})")
    return int(raw)


@dataclass(frozen=True)
class Grid:
    """A sweep's variants, counted from their axes and produced one at a time.

    Attributes:
        axes: The alternatives of each ``--set`` key, in the order keys were first given.
        surfaces: The surfaces to try (``(None,)``: the scenario's own).
    """

    axes: tuple[tuple[Override, ...], ...] = ()
    surfaces: tuple[str | None, ...] = (None,)

    @property
    def size(self) -> int:
        """How many variants the grid has (the product of every axis's length)."""
        return math.prod(len(axis) for axis in self.axes) * len(self.surfaces)

    def __iter__(self) -> Iterator[Variant]:
        combos = itertools.product(itertools.product(*self.axes), self.surfaces)
        for index, (combo, surface) in enumerate(combos):
            yield Variant(index, tuple(combo), surface)


def variant_grid(sets: Iterable[str] = (), surfaces: Sequence[str] = (), *,
                 env: Mapping[str, str] | None = None) -> Grid:
    """The grid of ``sets`` and ``surfaces``, its size checked before any value is read.

    Raises:
        ConfigError: a bad ``--set``, or more variants than :func:`max_variants` allows.
    """
    raws: dict[str, list[str]] = {}
    for item in sets:
        key, raw = _split_set(item)
        raws.setdefault(key, []).append(item)
    lengths = [len(items) for items in raws.values()] + ([len(surfaces)] if surfaces else [])
    size = math.prod(lengths)
    cap = max_variants(env)
    if size > cap:
        shown = f"{size:,}" if size < 10**15 else f"about 10^{len(str(size)) - 1}"
        product = " x ".join(str(n) for n in lengths)
        raise ConfigError("--set", "", f"the grid has {shown} variants ({product} "
                                       f"alternatives); a sweep may have at most {cap:,} "
                                       f"({VARIANTS_ENV} raises it): give fewer alternatives "
                                       f"or split the sweep")
    axes = tuple(tuple(parse_set(item) for item in items) for items in raws.values())
    return Grid(axes, tuple(surfaces) or (None,))


def build_variants(sets: Iterable[str] = (), surfaces: Sequence[str] = ()) -> list[Variant]:
    """The grid as a list: the product of each key's alternatives and of the surfaces."""
    return list(variant_grid(sets, surfaces))
