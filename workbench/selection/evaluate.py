"""Rank tools for a task set and measure: specs in, an :class:`Evaluation` out.

Pure selection: it knows nothing of surface files (a surface directory is scored by
:func:`workbench.surface.scoring.evaluate_surface`, which reads the tools as an agent is
shown them and calls :func:`evaluate`).

Example:
    >>> from workbench.selection import evaluate
    >>> result = evaluate(specs, tasks, selector="bm25")  # doctest: +SKIP
    >>> result.top1  # doctest: +SKIP
    0.93
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.errors import ConfigError
from workbench.selection.metrics import Evaluation, score
from workbench.selection.rankers import Selector, make_selector
from workbench.selection.tasks import Task
from workbench.tools.registry import ToolSpec

__all__ = ["DEFAULT_THRESHOLDS", "evaluate"]

#: A ranker's best score at or under which it is taken to pick no tool.
DEFAULT_THRESHOLDS = {"bm25": 0.0, "embedding": 0.1, "model": 0.0}


def evaluate(specs: Sequence[ToolSpec], tasks: Sequence[Task], *,
             selector: str | Selector = "bm25", threshold: float | None = None,
             margin: float = 0.1, label: str = "", strict: bool = True,
             **options: Any) -> Evaluation:
    """Rank ``specs`` for every task's query and score the rankings.

    Args:
        specs: The tools, as shown to the agent.
        tasks: The queries and expected tools.
        selector: ``bm25``, ``embedding``, ``model`` (with ``model=``) or a Selector.
        threshold: Best score at or under which a ranker picks none (per-selector default).
        margin: Relative winning margin under which a tool "needs work".
        label: A name for reports (a surface directory, say).
        strict: Refuse tasks that expect a tool ``specs`` lacks (a typo); when False they
            count as misses (a curation that hides the tool they need).
        **options: For :func:`~workbench.selection.rankers.make_selector` (``model=``).
    """
    chosen = make_selector(selector, **options) if isinstance(selector, str) else selector
    known = {spec.name for spec in specs}
    strangers = sorted({t.tool for t in tasks if t.tool is not None and t.tool not in known})
    if strangers and strict:
        raise ConfigError("tasks", "tool", f"expects tools the surface does not show: "
                                           f"{', '.join(strangers)}; known: "
                                           f"{', '.join(sorted(known))}")
    rankings = chosen.rank([t.query for t in tasks], specs)
    if threshold is None:
        threshold = DEFAULT_THRESHOLDS.get(chosen.name, 0.0)
    return score(tasks, rankings, selector=chosen.name, threshold=threshold, margin=margin,
                 label=label)
