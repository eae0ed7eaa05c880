"""Scoring a selector on tasks: top-1, top-3, MRR, abstention, and what each tool is confused with.

Definitions (``cases`` counts every task; the rates use the tasks each applies to):

* **top-1 / top-3**: the expected tool ranks first / in the first three, over the tasks
  that expect a tool;
* **MRR**: the mean of ``1 / rank`` of the expected tool (0 when it is not ranked);
* **abstention**: over the tasks where no tool fits, the share where the selector picks
  none: a ranker abstains when its best score is below ``threshold``, a model when it
  calls no tool;
* **per tool**: how often a tool's own queries rank it first, and which tools beat it;
* **needs work**: tools whose own queries rank another tool first, or win by a margin
  under ``margin`` (relative to the winning score): a small change to a neighbour's
  description could flip them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.selection.rankers import Ranking
from workbench.selection.tasks import Task

__all__ = ["Case", "Evaluation", "score"]


@dataclass(frozen=True)
class Case:
    """One task and what the selector did with it.

    Attributes:
        task: The task.
        ranking: Tools with scores, best first (empty: the selector picked none).
        threshold: The score under which a ranker is taken to pick no tool.
    """

    task: Task
    ranking: Ranking
    threshold: float = 0.0

    @property
    def picked(self) -> str | None:
        """The tool the selector would call, or None."""
        if not self.ranking or self.ranking[0][1] <= self.threshold:
            return None
        return self.ranking[0][0]

    @property
    def rank(self) -> int | None:
        """1-based rank of the expected tool (None: not ranked, or no tool expected)."""
        return None if self.task.tool is None else self.ranking.position(self.task.tool)

    @property
    def hit(self) -> bool:
        """The expected tool is picked (or, when none fits, none is)."""
        return self.picked == self.task.tool

    @property
    def margin(self) -> float | None:
        """(best - second best) / best score, when the expected tool ranks first."""
        if self.rank != 1 or len(self.ranking) < 2 or self.ranking[0][1] <= 0:
            return None
        return (self.ranking[0][1] - self.ranking[1][1]) / self.ranking[0][1]


@dataclass
class Evaluation:
    """A selector's score on a task set (see the module docstring for the definitions)."""

    selector: str
    cases: list[Case]
    margin: float = 0.1
    label: str = ""
    _per_tool: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def _tooled(self) -> list[Case]:
        return [c for c in self.cases if c.task.tool is not None]

    @property
    def top1(self) -> float:
        """Share of tool tasks whose expected tool ranks first (and is picked)."""
        tooled = self._tooled
        return sum(c.hit for c in tooled) / len(tooled) if tooled else 0.0

    @property
    def top3(self) -> float:
        """Share of tool tasks whose expected tool is in the first three."""
        tooled = self._tooled
        return sum(1 for c in tooled if c.rank is not None and c.rank <= 3) / len(tooled) \
            if tooled else 0.0

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank of the expected tool."""
        tooled = self._tooled
        return sum(1 / c.rank for c in tooled if c.rank) / len(tooled) if tooled else 0.0

    @property
    def abstention(self) -> float | None:
        """Share of no-tool tasks where no tool is picked (None without such tasks)."""
        nulls = [c for c in self.cases if c.task.tool is None]
        return sum(c.picked is None for c in nulls) / len(nulls) if nulls else None

    def per_tool(self) -> list[dict[str, Any]]:
        """``[{tool, cases, top1, confused_with, min_margin}]`` sorted by tool."""
        rows = []
        for tool in sorted({c.task.tool for c in self._tooled}):  # type: ignore[type-var]
            own = [c for c in self._tooled if c.task.tool == tool]
            confused = Counter(c.picked or "(none)" for c in own if not c.hit)
            margins = [c.margin for c in own if c.margin is not None]
            rows.append({
                "tool": tool,
                "cases": len(own),
                "top1": sum(c.hit for c in own) / len(own),
                "confused_with": dict(sorted(confused.items(), key=lambda kv: (-kv[1], kv[0]))),
                "min_margin": min(margins) if margins else None,
            })
        return rows

    def needs_work(self) -> list[str]:
        """Tools whose own queries go elsewhere, or win by less than ``margin``."""
        return [row["tool"] for row in self.per_tool()
                if row["top1"] < 1.0 or (row["min_margin"] is not None
                                         and row["min_margin"] < self.margin)]

    def to_dict(self, top: int = 3) -> dict[str, Any]:
        """The JSON shape of ``workbench eval --format json``."""
        return {
            "selector": self.selector,
            "cases": len(self.cases),
            "top1": self.top1,
            "top3": self.top3,
            "mrr": self.mrr,
            "abstention": self.abstention,
            "per_tool": self.per_tool(),
            "needs_work": self.needs_work(),
            "details": [{"query": c.task.query, "expected": c.task.tool,
                         "ranked": c.ranking.names(top),
                         "picked": c.picked, "hit": c.hit} for c in self.cases],
        }

    def __repr__(self) -> str:
        return (f"Evaluation({self.selector}, {len(self.cases)} cases, top1={self.top1:.3f}, "
                f"needs_work={self.needs_work()})")


def score(tasks: Sequence[Task], rankings: Sequence[Ranking], *, selector: str,
          threshold: float = 0.0, margin: float = 0.1, label: str = "") -> Evaluation:
    """Pair ``tasks`` with their ``rankings`` and score them."""
    if len(tasks) != len(rankings):
        raise ValueError(f"{len(tasks)} tasks but {len(rankings)} rankings")
    cases = [Case(t, r if isinstance(r, Ranking) else Ranking.of(list(r)), threshold)
             for t, r in zip(tasks, rankings, strict=True)]
    return Evaluation(selector, cases, margin, label)
