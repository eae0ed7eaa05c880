"""Variants of a toolset that take one signal away: the names, or the descriptions.

"Does a description help?" has a control: the same tools with the description (and the
title, and each parameter's description) taken out. Names carry much of the signal on
their own, so the same question is asked again with uninformative names (``tool_1``,
``tool_2``, ... in the order given, titles gone), which leaves the description as the
only words that say what a tool does. Tasks follow the renaming, so every variant is
scored on the same cases and any two compare case by case (:func:`~workbench.selection.compare`).

Example:
    >>> from workbench.tools.registry import ToolSpec
    >>> specs, tasks = masked([ToolSpec("echo", "Repeat a message.")], [])
    >>> [s.name for s in specs]
    ['tool_1']
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from workbench.selection.tasks import Task
from workbench.tools.registry import ToolSpec

__all__ = ["VARIANTS", "masked", "undescribed", "variant"]

#: The four conditions of the names-and-descriptions grid, by name.
VARIANTS = ("named+described", "named", "masked+described", "masked")


def undescribed(specs: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The tools with no title, description or parameter descriptions.

    The schemas are otherwise as they are.
    """
    return [replace(spec, title=None, description="",
                    input_schema=_without_descriptions(spec.input_schema))
            for spec in specs]


def masked(specs: Sequence[ToolSpec], tasks: Sequence[Task]
           ) -> tuple[list[ToolSpec], list[Task]]:
    """The tools named ``tool_1``, ``tool_2``, ... (no titles), and the tasks renamed too."""
    names = {spec.name: f"tool_{i}" for i, spec in enumerate(specs, 1)}
    renamed = [replace(spec, name=names[spec.name], title=None) for spec in specs]
    return renamed, [replace(task, tool=names.get(task.tool, task.tool) if task.tool else None,
                             must_not=tuple(names.get(m, m) for m in task.must_not))
                     for task in tasks]


def variant(name: str, specs: Sequence[ToolSpec], tasks: Sequence[Task]
            ) -> tuple[list[ToolSpec], list[Task]]:
    """One of :data:`VARIANTS` of ``specs`` and ``tasks``.

    Raises:
        ValueError: ``name`` is not one of them.
    """
    if name not in VARIANTS:
        raise ValueError(f"{name!r} is not a variant; allowed: {', '.join(VARIANTS)}")
    out, out_tasks = (masked(specs, tasks) if name.startswith("masked")
                      else (list(specs), list(tasks)))
    if not name.endswith("+described"):
        out = undescribed(out)
    return out, out_tasks


def _without_descriptions(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """``schema`` with every ``description`` (and ``title``) under ``properties`` taken out."""
    if not schema:
        return schema
    clean = copy.deepcopy(dict(schema))
    stack = [clean]
    while stack:
        node = stack.pop()
        props = node.get("properties")
        if isinstance(props, dict):
            for prop in props.values():
                if isinstance(prop, dict):
                    prop.pop("description", None)
                    prop.pop("title", None)
                    stack.append(prop)
        items = node.get("items")
        if isinstance(items, dict):
            stack.append(items)
    return clean
