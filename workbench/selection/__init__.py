"""Does a description help? Measure how well tools are picked from what an agent is shown.

A task set (``{"query", "tool" or null}``) is ranked by a selector (``bm25``, the offline
sentence encoder ``e5``, the ``hybrid`` of both, or a ``model`` backend) over exactly the
text an agent is shown, and scored (top-1, top-3, MRR, abstention, confusions). Two
curations of the same toolset compare case by case, with an exact McNemar p-value; several
selectors on the same tasks report how often they agree (:func:`agreement`).
:func:`default_selector` is the best offline ranker installed (``hybrid`` with the
``encoder`` extra, else ``bm25``).

Example:
    >>> from workbench.selection import compare
    >>> from workbench.surface.scoring import evaluate_surface
    >>> a = evaluate_surface("terse/", "tasks.jsonl")  # doctest: +SKIP
    >>> b = evaluate_surface("curated/", "tasks.jsonl")  # doctest: +SKIP
    >>> compare(a, b).p_value  # doctest: +SKIP
"""

from __future__ import annotations

from workbench.selection.ab import Comparison, compare, mcnemar_exact
from workbench.selection.agreement import Agreement, agreement
from workbench.selection.evaluate import evaluate
from workbench.selection.metrics import Case, Evaluation, score
from workbench.selection.rankers import SELECTORS, default_selector, make_selector
from workbench.selection.tasks import Task, load_tasks

__all__ = ["SELECTORS", "Agreement", "Case", "Comparison", "Evaluation", "Task", "agreement",
           "compare", "default_selector", "evaluate", "load_tasks",
           "make_selector", "mcnemar_exact", "score"]
