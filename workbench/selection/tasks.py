"""Selection tasks: queries a person would type, and the tool that should answer each.

A task file is JSONL (one object a line) or a YAML list of ``{"query": TEXT, "tool": NAME
or null}``; ``null`` means no tool fits (the right answer is to call none). An optional
``"args"`` object holds the arguments a model selector should fill, and an optional
``"must_not"`` list names tools that must never rank first for the query (a confusion
pair a selection gate holds in CI). A surface directory
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
#: Bytes a task file may hold. A hand-written or generated task set is kilobytes to a few
#: megabytes; 16 MiB is thousands of long queries, and anything bigger (``/dev/zero``, a
#: log given by mistake) is refused before it is read, not after it has filled memory.
MAX_TASKS_BYTES = 16 * 1024 * 1024
#: Lines (JSONL) or list items (YAML) a task file may hold. Every task is ranked against
#: every tool, and with ``--selector model`` each is a model call: 50,000 is far past any
#: real benchmark and still finishes in minutes with the offline rankers.
MAX_TASK_LINES = 50_000
#: Bytes (UTF-8) of one query. A query is what a person types to an agent: a sentence or
#: a paragraph. 8 KiB is pages of it (an embedding model reads only its first few hundred
#: tokens anyway); a bigger one is a file pasted by mistake.
MAX_QUERY_BYTES = 8 * 1024
#: How deeply one task may nest (the task object is level 1, its ``args`` level 2).
#: ``args`` nest as deeply as a tool's input schema, a few levels in practice; 32 leaves
#: room for any real one and keeps every later walk of the values shallow.
MAX_TASK_DEPTH = 32
_KEYS = {"query", "tool", "args", "must_not"}
_MISSING = object()
_WHAT = 'a task file (JSONL of {"query": ..., "tool": ...}, or a YAML list of them)'


@dataclass(frozen=True, repr=False)
class Task:
    """One query and the tool expected to answer it (None: no tool fits).

    Raises:
        ConfigError: the query is longer than :data:`MAX_QUERY_BYTES` (a Task built in
            Python is held to the same cap as one read from a file).
    """

    query: str
    tool: str | None
    args: Mapping[str, Any] | None = None
    #: Tools that must never rank first for this query (a confusion pair a gate holds).
    must_not: tuple[str, ...] = ()

    def __repr__(self) -> str:
        shown = f"Task(query={self.query!r}, tool={self.tool!r}, args={self.args!r}"
        return shown + (f", must_not={self.must_not!r})" if self.must_not else ")")

    def __post_init__(self) -> None:
        problem = _query_problem(self.query)
        if problem:
            raise ConfigError("task", "query", problem)


def load_tasks(path: str | Path) -> list[Task]:
    """Read a JSONL or YAML task file (a directory means its ``tasks.jsonl``).

    Only a regular file is read, and only up to the caps above (bytes, lines, query
    size, nesting), so a device, a FIFO or a runaway file is one error, never a hang.

    Raises:
        ConfigError: naming the file, the line and what is allowed.
    """
    from workbench._files import read_text

    path = Path(path)
    if path.is_dir():
        path = path / TASKS_FILE
    if not path.exists() and not path.is_symlink():
        raise ConfigError(path, "", "no task file; write one query a line as "
                                    '{"query": "...", "tool": "NAME or null"}')
    text = read_text(path, _WHAT, max_bytes=MAX_TASKS_BYTES)
    if path.suffix in (".yaml", ".yml"):
        rows = _yaml_rows(path, text)
    else:
        rows = _jsonl_rows(path, text)
    if len(rows) > MAX_TASK_LINES:
        raise ConfigError(path, "", f"holds more than {MAX_TASK_LINES:,} tasks, the most one "
                                    f"evaluation takes; split it into several files")
    tasks = [_task(path, line, row) for line, row in rows]
    if not tasks:
        raise ConfigError(path, "", "holds no tasks; add at least one query")
    return tasks


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, Any]]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if number > MAX_TASK_LINES:
            raise ConfigError(path, "", f"has more than {MAX_TASK_LINES:,} lines, the most "
                                        f"one task file may have; split it", number)
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ConfigError(path, "", f"not a JSON object: {exc.msg}", number) from None
        except RecursionError:
            raise ConfigError(path, "", _too_deep(), number) from None
    return rows


def _yaml_rows(path: Path, text: str) -> list[tuple[int | None, Any]]:
    from workbench.contracts._yaml import parse_yaml

    data = parse_yaml(path, text)  # duplicate keys, alias bombs and depth: one error each
    if not isinstance(data, list):
        raise ConfigError(path, "", "must be a list of {query, tool} objects")
    return [(None, row) for row in data]


def _task(path: Path, line: int | None, row: Any) -> Task:
    if not isinstance(row, dict):
        raise ConfigError(path, "", 'each task is an object {"query": ..., "tool": ...}', line)
    if _depth(row) > MAX_TASK_DEPTH:
        raise ConfigError(path, "", _too_deep(), line)
    unknown = sorted(set(row) - _KEYS, key=str)
    if unknown:
        raise ConfigError(path, str(unknown[0]), f"unknown key; allowed: "
                                                 f"{', '.join(sorted(_KEYS))}", line)
    query, tool, args = row.get("query"), row.get("tool", _MISSING), row.get("args")
    if not isinstance(query, str) or not query.strip():
        raise ConfigError(path, "query", "must be a non-empty string", line)
    problem = _query_problem(query)
    if problem:
        raise ConfigError(path, "query", problem, line)
    if tool is _MISSING or (tool is not None and (not isinstance(tool, str) or not tool)):
        raise ConfigError(path, "tool", "must be a tool name, or null when no tool fits", line)
    if args is not None and not isinstance(args, dict):
        raise ConfigError(path, "args", "must be an object of argument values", line)
    must_not = row.get("must_not", [])
    if not isinstance(must_not, list) or not all(isinstance(t, str) and t for t in must_not):
        raise ConfigError(path, "must_not", "must be a list of tool names that must never "
                                            "rank first for this query", line)
    if tool is not None and tool in must_not:
        raise ConfigError(path, "must_not", f"names {tool!r}, the tool the query expects",
                          line)
    return Task(query, tool, args, tuple(must_not))


def _query_problem(query: Any) -> str:
    """Why ``query`` is over the size cap, or "" (cheap: the length bounds the bytes)."""
    if not isinstance(query, str) or len(query) <= MAX_QUERY_BYTES // 4:
        return ""
    size = len(query.encode("utf-8", "surrogatepass"))
    if size <= MAX_QUERY_BYTES:
        return ""
    return (f"is {size:,} bytes; a query may have at most {MAX_QUERY_BYTES:,} (what a "
            f"person would type to an agent, not a document)")


def _too_deep() -> str:
    return (f"nested too deeply; a task may nest at most {MAX_TASK_DEPTH} levels "
            f"(the task, its args and the values inside them)")


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar is 0), walked without recursion.

    Stops one level past the cap: that is enough to refuse it.
    """
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if not isinstance(node, dict | list):
            continue
        deepest = max(deepest, level)
        if deepest > MAX_TASK_DEPTH:
            return deepest
        stack.extend((child, level + 1)
                     for child in (node.values() if isinstance(node, dict) else node))
    return deepest
