"""Scoring a surface directory's tool selection: its tools as an agent is shown them, ranked.

Selection (:mod:`workbench.selection`) ranks specs against tasks and knows nothing of
surface files; this module reads a surface (curated descriptions and examples, the
server's schemas) into the specs an agent is shown and hands them to it.

Example:
    >>> from workbench.surface.scoring import evaluate_surface
    >>> result = evaluate_surface("config/surfaces/watch-house")  # doctest: +SKIP
    >>> result.top1  # doctest: +SKIP
    0.93
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.contracts.surface import TOOLS_FILE, entry_to_wire, load_tools
from workbench.errors import ConfigError
from workbench.selection.evaluate import evaluate
from workbench.selection.metrics import Evaluation
from workbench.selection.tasks import TASKS_FILE, Task, load_tasks
from workbench.surface.overlay import curated_spec
from workbench.tools.registry import ToolSpec

__all__ = ["entry_specs", "evaluate_surface", "surface_specs"]


def entry_specs(entries: Sequence[Any], *, show_examples: bool = True) -> list[ToolSpec]:
    """tools.json entries as an agent is shown them (curated description, examples)."""
    return [curated_spec(entry, entry_to_wire(entry), show_examples=show_examples)
            for entry in entries]


def surface_specs(dir: str | Path, *, show_examples: bool = True) -> list[ToolSpec]:
    """The tools of a surface directory exactly as an agent is shown them.

    Raises:
        ConfigError: the directory has no tools.json, or it is invalid.
    """
    if not (Path(dir) / TOOLS_FILE).is_file():
        raise ConfigError(dir, "", f"no {TOOLS_FILE} here: not a surface directory (see "
                                   f"`workbench surface import`)")
    return entry_specs(load_tools(dir), show_examples=show_examples)


def evaluate_surface(dir: str | Path, tasks: str | Path | Sequence[Task] | None = None,
                     **kwargs: Any) -> Evaluation:
    """:func:`evaluate` a surface directory on ``tasks`` (default: its own tasks.jsonl)."""
    if tasks is None:
        tasks = Path(dir) / TASKS_FILE
    task_list = load_tasks(tasks) if isinstance(tasks, str | Path) else list(tasks)
    kwargs.setdefault("label", str(dir))
    return evaluate(surface_specs(dir), task_list, **kwargs)
