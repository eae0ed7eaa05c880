"""Selection gates: a surface's tool choice held to a minimum in CI, like its scenarios.

A curated surface may keep, beside its ``tasks.jsonl``, a ``selection.yaml``::

    selector: bm25        # an offline ranker: bm25 (default), e5 or hybrid
    min_top1: 0.8         # the share of tasks whose expected tool must rank first
    min_top3: 0.95        # ... among the first three

and a task line may say ``"must_not": ["TOOL", ...]``: tools that must never rank first for
that query (the confusion pairs people ask to pin down). :func:`check_gate` scores the
surface's own tasks and reports every minimum missed and every ``must_not`` broken, one
line each; ``workbench eval DIR --gate`` and the pytest plugin (``selection::SURFACE``) use
it. The file is strict like every config file.

Example:
    >>> check_gate("config/surfaces/watch-house").ok  # doctest: +SKIP
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from workbench.contracts.manifest import StrictModel

__all__ = ["GATE_FILE", "GateVerdict", "SelectionGate", "check_gate", "load_gate"]

#: The gate's file in a surface directory.
GATE_FILE = "selection.yaml"


class SelectionGate(StrictModel):
    """What a surface's tool selection must reach on its own tasks."""

    selector: Literal["bm25", "e5", "hybrid"] = "bm25"
    min_top1: float | None = Field(default=None, ge=0, le=1)
    min_top3: float | None = Field(default=None, ge=0, le=1)


@dataclass(frozen=True)
class GateVerdict:
    """How a surface did against its gate.

    Attributes:
        surface: The surface directory's name.
        selector: The ranker that scored it.
        top1: Its top-1 rate on its tasks.
        top3: Its top-3 rate.
        problems: One line per minimum missed or ``must_not`` broken.
    """

    surface: str
    selector: str
    top1: float
    top3: float
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when every minimum is met and no ``must_not`` tool ranks first."""
        return not self.problems

    def lines(self) -> list[str]:
        """The problems, each prefixed as the plugin reports them."""
        return [f"selection::{self.surface}: {p}" for p in self.problems]


def load_gate(dir: str | Path) -> SelectionGate:
    """The gate of surface ``dir`` (its ``selection.yaml``).

    Raises:
        ConfigError: no such file, or it breaks the schema (file, line, key, what is
            allowed).
    """
    from workbench.contracts._yaml import model_from_yaml

    return model_from_yaml(Path(dir) / GATE_FILE, SelectionGate)


def check_gate(dir: str | Path) -> GateVerdict:
    """Score surface ``dir`` on its own tasks and hold it to its ``selection.yaml``.

    Raises:
        ConfigError: the gate, the tasks or the surface does not load.
    """
    from workbench.surface.scoring import evaluate_surface

    dir = Path(dir)
    gate = load_gate(dir)
    result = evaluate_surface(dir, selector=gate.selector)
    problems: list[str] = []
    for name, floor, got in (("min_top1", gate.min_top1, result.top1),
                             ("min_top3", gate.min_top3, result.top3)):
        if floor is not None and got < floor:
            missed = [c.task.query for c in result.cases if c.task.tool is not None
                      and (c.rank is None or c.rank > (1 if name == "min_top1" else 3))]
            problems.append(f"{name}: {gate.selector} reached {got:.3f}, under {floor:.3f}; "
                            f"missed: {'; '.join(repr(q) for q in missed[:5])}"
                            f"{f' and {len(missed) - 5} more' if len(missed) > 5 else ''}")
    for case in result.cases:
        first = case.ranking[0][0] if case.ranking else None
        if first is not None and first in case.task.must_not:
            problems.append(f"must_not: {first} ranks first for {case.task.query!r} "
                            f"(expected {case.task.tool or 'no tool'})")
    return GateVerdict(dir.name, gate.selector, result.top1, result.top3, tuple(problems))
