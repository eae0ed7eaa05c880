"""Score a curated surface: load its tools as an agent sees them, rank, and measure.

Example:
    >>> from workbench.selection import evaluate_surface
    >>> result = evaluate_surface("config/surfaces/watch-house")  # doctest: +SKIP
    >>> result.top1  # doctest: +SKIP
    0.93
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.selection.metrics import Evaluation, score
from workbench.selection.rankers import Selector, make_selector
from workbench.selection.tasks import TASKS_FILE, Task, load_tasks
from workbench.tools.registry import ToolSpec

__all__ = ["DEFAULT_THRESHOLDS", "entry_specs", "evaluate", "evaluate_surface",
           "surface_specs"]

#: A ranker's best score at or under which it is taken to pick no tool.
DEFAULT_THRESHOLDS = {"bm25": 0.0, "embedding": 0.1, "model": 0.0}


def entry_specs(entries: Sequence[Any], *, show_examples: bool = True) -> list[ToolSpec]:
    """tools.json entries as an agent is shown them (curated description, examples)."""
    from workbench.contracts.surface import entry_to_wire
    from workbench.surface.overlay import curated_spec

    return [curated_spec(entry, entry_to_wire(entry), show_examples=show_examples)
            for entry in entries]


def surface_specs(dir: str | Path, *, show_examples: bool = True) -> list[ToolSpec]:
    """The tools of a surface directory exactly as an agent is shown them.

    Raises:
        ConfigError: the directory has no tools.json, or it is invalid.
    """
    from workbench.contracts.surface import TOOLS_FILE, load_tools

    if not (Path(dir) / TOOLS_FILE).is_file():
        raise ConfigError(dir, "", f"no {TOOLS_FILE} here: not a surface directory (see "
                                   f"`workbench surface import`)")
    return entry_specs(load_tools(dir), show_examples=show_examples)


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


def evaluate_surface(dir: str | Path, tasks: str | Path | Sequence[Task] | None = None,
                     **kwargs: Any) -> Evaluation:
    """:func:`evaluate` a surface directory on ``tasks`` (default: its own tasks.jsonl)."""
    if tasks is None:
        tasks = Path(dir) / TASKS_FILE
    task_list = load_tasks(tasks) if isinstance(tasks, str | Path) else list(tasks)
    kwargs.setdefault("label", str(dir))
    return evaluate(surface_specs(dir), task_list, **kwargs)
