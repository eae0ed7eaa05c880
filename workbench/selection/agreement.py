"""How often selectors agree: the same tasks ranked by several selectors, pick by pick.

Two selectors agree on a task when they would call the same tool (or both call none). A
high agreement between a cheap ranker and a better one says the cheap one is a fair
stand-in on these tasks; the tasks where they part are the ones worth reading.

Example:
    >>> from workbench.surface.scoring import evaluate_surface
    >>> runs = [evaluate_surface("config/surfaces/watch-house", selector=s)
    ...         for s in ("bm25", "hybrid")]  # doctest: +SKIP
    >>> agreement(runs).all_share  # doctest: +SKIP
    0.62
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from workbench.errors import ConfigError
from workbench.selection.metrics import Evaluation

__all__ = ["Agreement", "agreement"]


@dataclass(frozen=True)
class Agreement:
    """Top-1 agreement between selectors on one task list.

    Attributes:
        selectors: The selectors, in the order given.
        tasks: How many tasks each ranked.
        pairs: ``(a, b, agreed)`` for every pair, ``agreed`` counting the tasks where both
            picked the same tool (or both none).
        all_agreed: Tasks where every selector picked the same.
        disagreed: The queries where they did not, each with every selector's pick.
    """

    selectors: tuple[str, ...]
    tasks: int
    pairs: tuple[tuple[str, str, int], ...]
    all_agreed: int
    disagreed: tuple[tuple[str, tuple[str | None, ...]], ...]

    @property
    def all_share(self) -> float:
        """Share of tasks on which every selector agreed."""
        return self.all_agreed / self.tasks if self.tasks else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The ``agreement`` block of ``workbench eval --selector all --format json``."""
        return {
            "tasks": self.tasks,
            "pairs": [{"a": a, "b": b, "agreed": n, "share": n / self.tasks if self.tasks
                       else 0.0} for a, b, n in self.pairs],
            "all": {"selectors": list(self.selectors), "agreed": self.all_agreed,
                    "share": self.all_share},
            "disagreed": [{"query": q, "picked": dict(zip(self.selectors, picks, strict=True))}
                          for q, picks in self.disagreed],
        }

    def lines(self) -> list[str]:
        """A short report: one line per pair and one for all of them."""
        def share(n: int) -> str:
            return f"{n / self.tasks:.3f} ({n} of {self.tasks})" if self.tasks else "-"

        out = [f"top-1 agreement, {a} and {b}: {share(n)}" for a, b, n in self.pairs]
        if len(self.selectors) > 2:
            out.append(f"top-1 agreement, all of {', '.join(self.selectors)}: "
                       f"{share(self.all_agreed)}")
        return out


def agreement(evaluations: Sequence[Evaluation]) -> Agreement:
    """How often the selectors of ``evaluations`` (same tasks, same order) pick alike.

    Raises:
        ConfigError: the evaluations ran different tasks.
    """
    if not evaluations:
        return Agreement((), 0, (), 0, ())
    first = [(c.task.query, c.task.tool) for c in evaluations[0].cases]
    for other in evaluations[1:]:
        if [(c.task.query, c.task.tool) for c in other.cases] != first:
            raise ConfigError("--selector", "all", "the selectors ran different tasks; "
                                                   "give them one task file")
    names = tuple(e.selector for e in evaluations)
    picks = [tuple(e.cases[i].picked for e in evaluations) for i in range(len(first))]
    pairs = tuple((names[i], names[j], sum(p[i] == p[j] for p in picks))
                  for i, j in combinations(range(len(names)), 2))
    alike = [len(set(p)) == 1 for p in picks]
    disagreed = tuple((first[i][0], p) for i, p in enumerate(picks) if not alike[i])
    return Agreement(names, len(first), pairs, sum(alike), disagreed)
