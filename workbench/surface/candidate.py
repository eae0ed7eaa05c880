"""Candidates: a surface as text parts, the unit an editor or an optimiser proposes and scores.

:func:`materialize` turns a surface directory (:mod:`workbench.contracts.surface`) into
text parts; a :class:`Candidate` is those parts with a stable id, and its score is the
top-1 rate of its tool selection.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.contracts.surface import load_policy, load_tools

__all__ = ["Candidate", "materialize"]


def materialize(dir: str | Path) -> dict[str, str]:
    """The surface as text parts, the unit an editor or optimiser works on.

    Keys are ``tool.<name>.description``, ``tool.<name>.parameters`` (pretty JSON) and
    ``tool.<name>.examples`` (pretty JSON, only for tools that have examples), in the
    order of ``tools.json``.
    """
    parts: dict[str, str] = {}
    for entry in load_tools(dir):
        name = entry["name"]
        parts[f"tool.{name}.description"] = entry["description"]
        parts[f"tool.{name}.parameters"] = json.dumps(entry["parameters"], indent=2,
                                                      ensure_ascii=False)
        if entry.get("examples"):
            parts[f"tool.{name}.examples"] = json.dumps(entry["examples"], indent=2,
                                                        ensure_ascii=False)
    return parts


@dataclass(frozen=True)
class Candidate:
    """One proposed surface: its id, which capability it is edited under, its text parts.

    Attributes:
        id: Stable id (``sha256`` prefix of the text parts when built by :meth:`from_dir`).
        component: The capability the surface is curated under (``mcp-tool`` or ``tools``).
        text_parts: As :func:`materialize` returns them.
        dir: The surface directory.
    """

    id: str
    component: str
    text_parts: Mapping[str, str] = field(default_factory=dict)
    dir: str = ""

    @classmethod
    def from_dir(cls, dir: str | Path) -> Candidate:
        """The candidate a surface directory holds now."""
        parts = materialize(dir)
        digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()
        return cls(digest[:12], load_policy(dir)["capability"], parts, str(dir))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict: ``{"id", "component", "text_parts", "dir"}``."""
        return {"id": self.id, "component": self.component,
                "text_parts": dict(self.text_parts), "dir": str(self.dir)}

    def score(self, tasks: Any = None, **options: Any) -> float:
        """The candidate's top-1 rate on ``tasks``, so an optimizer can rank candidates.

        Args:
            tasks: A task file, a list of :class:`~workbench.selection.Task`, or None for
                the surface's own ``tasks.jsonl``.
            **options: For :func:`~workbench.selection.evaluate` (``selector=``, ...).
        """
        from workbench.surface.scoring import evaluate_surface

        return evaluate_surface(self.dir, tasks, **options).top1
