"""A/B: the same tasks on two curations of a toolset, case by case, with an exact test.

A case is *fixed* when A misses and B hits, *broken* when A hits and B misses, and
*unchanged* otherwise. Whether B beats A is McNemar's question: among the cases that
changed, is "fixed" more common than chance? The exact (binomial) test needs no large
sample, which matters for the 30-query task sets people actually write: with 3 fixed and
0 broken, p = 0.25, not a win yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

from workbench.errors import ConfigError
from workbench.selection.metrics import Evaluation

__all__ = ["Comparison", "compare", "mcnemar_exact"]


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value for ``fixed`` vs ``broken`` discordant cases."""
    n = fixed + broken
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(fixed, broken) + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Comparison:
    """Two evaluations of the same tasks, case by case."""

    a: Evaluation
    b: Evaluation
    fixed: list[str]
    broken: list[str]
    unchanged: int

    @property
    def delta_top1(self) -> float:
        """B's top-1 minus A's."""
        return self.b.top1 - self.a.top1

    @property
    def p_value(self) -> float:
        """Exact McNemar p-value of fixed vs broken."""
        return mcnemar_exact(len(self.fixed), len(self.broken))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``workbench eval A --against B --format json``."""
        return {
            "a": {"label": self.a.label, "top1": self.a.top1, "top3": self.a.top3,
                  "mrr": self.a.mrr},
            "b": {"label": self.b.label, "top1": self.b.top1, "top3": self.b.top3,
                  "mrr": self.b.mrr},
            "delta_top1": self.delta_top1,
            "p_value": self.p_value,
            "fixed": self.fixed,
            "broken": self.broken,
            "unchanged": self.unchanged,
        }


def compare(a: Evaluation, b: Evaluation) -> Comparison:
    """Compare two evaluations of the same tasks (same queries, same order).

    Raises:
        ConfigError: the task lists differ.
    """
    qa = [(c.task.query, c.task.tool) for c in a.cases]
    qb = [(c.task.query, c.task.tool) for c in b.cases]
    if qa != qb:
        raise ConfigError("--against", "", "the two evaluations ran different tasks; give "
                                           "both the same --tasks file")
    fixed = [ca.task.query for ca, cb in zip(a.cases, b.cases, strict=True)
             if not ca.hit and cb.hit]
    broken = [ca.task.query for ca, cb in zip(a.cases, b.cases, strict=True)
              if ca.hit and not cb.hit]
    return Comparison(a, b, fixed, broken, len(a.cases) - len(fixed) - len(broken))
