"""Selection tasks: queries a person would type, and the tool that should answer each.

A task file is JSONL (one object a line) or a YAML list of ``{"query": TEXT, "tool": NAME
or null}``; ``null`` means no tool fits (the right answer is to call none). An optional
``"args"`` object holds the arguments a model selector should fill. A surface directory
may keep its own ``tasks.jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError

__all__ = ["TASKS_FILE", "Task", "load_tasks"]

#: A surface directory's own task file.
TASKS_FILE = "tasks.jsonl"
_KEYS = {"query", "tool", "args"}
_MISSING = object()


@dataclass(frozen=True)
class Task:
    """One query and the tool expected to answer it (None: no tool fits)."""

    query: str
    tool: str | None
    args: Mapping[str, Any] | None = None


def load_tasks(path: str | Path) -> list[Task]:
    """Read a JSONL or YAML task file (a directory means its ``tasks.jsonl``).

    Raises:
        ConfigError: naming the file, the line and what is allowed.
    """
    path = Path(path)
    if path.is_dir():
        path = path / TASKS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(path, "", "no task file; write one query a line as "
                                    '{"query": "...", "tool": "NAME or null"}') from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"cannot read it as UTF-8 text ({exc})") from None
    if path.suffix in (".yaml", ".yml"):
        rows = _yaml_rows(path, text)
    else:
        rows = _jsonl_rows(path, text)
    tasks = [_task(path, line, row) for line, row in rows]
    if not tasks:
        raise ConfigError(path, "", "holds no tasks; add at least one query")
    return tasks


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, Any]]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ConfigError(path, "", f"not a JSON object: {exc.msg}", number) from None
    return rows


def _yaml_rows(path: Path, text: str) -> list[tuple[int, Any]]:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(path, "", f"invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, list):
        raise ConfigError(path, "", "must be a list of {query, tool} objects")
    return [(None, row) for row in data]  # type: ignore[misc]


def _task(path: Path, line: int | None, row: Any) -> Task:
    if not isinstance(row, dict):
        raise ConfigError(path, "", 'each task is an object {"query": ..., "tool": ...}', line)
    unknown = sorted(set(row) - _KEYS)
    if unknown:
        raise ConfigError(path, unknown[0], f"unknown key; allowed: {', '.join(sorted(_KEYS))}",
                          line)
    query, tool, args = row.get("query"), row.get("tool", _MISSING), row.get("args")
    if not isinstance(query, str) or not query.strip():
        raise ConfigError(path, "query", "must be a non-empty string", line)
    if tool is _MISSING or (tool is not None and (not isinstance(tool, str) or not tool)):
        raise ConfigError(path, "tool", "must be a tool name, or null when no tool fits", line)
    if args is not None and not isinstance(args, dict):
        raise ConfigError(path, "args", "must be an object of argument values", line)
    return Task(query, tool, args)
