"""The docs cover the code: every public name and CLI command is used in a tutorial or README.

"Used" means written as code: in a notebook's code cell, in a fenced block or inline
``code`` span of README.md or of a notebook's markdown. A name that only appears in
prose does not count. The notebooks are read as plain JSON (nbformat would cost seconds
of import for nothing here).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

import workbench
from workbench.cli import _parser

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
README = REPO / "README.md"

_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
_INLINE = re.compile(r"`([^`\n]+)`")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _code_corpus() -> str:
    """Every piece of text that is code: notebook code cells, fenced blocks, inline spans."""
    parts: list[str] = []
    markdown = [README.read_text(encoding="utf-8")]
    for path in NOTEBOOKS:
        for cell in _cells(path):
            if cell["cell_type"] == "code":
                parts.append(_source(cell))
            elif cell["cell_type"] == "markdown":
                markdown.append(_source(cell))
    for text in markdown:
        parts.extend(_FENCE.findall(text))
        parts.extend(_INLINE.findall(_FENCE.sub("", text)))
    return "\n".join(parts)


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
              ) -> list[tuple[str, ...]]:
    """Every command path of the parser, sub-commands of extensions included."""
    found: list[tuple[str, ...]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                path = (*prefix, name)
                found.append(path)
                found.extend(_commands(sub, path))
    return found


def _command_used(path: tuple[str, ...], corpus: str) -> bool:
    # As typed in a shell (`workbench surface apply`) or as the argv list a notebook passes
    # to workbench.cli.main (["surface", "apply", ...]).
    shell = r"\bworkbench\s+" + r"\s+".join(map(re.escape, path)) + r"\b"
    argv = r"\[\s*" + r"\s*,\s*".join(f"[\"']{re.escape(p)}[\"']" for p in path) + r"\s*[,\]]"
    return re.search(shell, corpus) is not None or re.search(argv, corpus) is not None


CORPUS = _code_corpus()
COMMANDS = _commands(_parser())


def test_there_are_tutorials_and_commands_to_check():
    assert NOTEBOOKS, "no notebooks under notebooks/"
    assert ("run",) in COMMANDS and len(COMMANDS) > 3


@pytest.mark.parametrize("name", workbench.__all__)
def test_every_public_name_is_used_in_a_notebook_or_the_readme(name):
    assert re.search(rf"(?<![\w.]){re.escape(name)}\b", CORPUS), (
        f"workbench.{name} is public but no notebook or README.md uses it in code; "
        f"show it in the tutorial that teaches it (or in README.md's API tour)"
    )


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_cli_command_is_used_in_a_notebook_or_the_readme(command):
    assert _command_used(command, CORPUS), (
        f"`workbench {' '.join(command)}` is a CLI command but no notebook or README.md "
        f"shows it; add an example to README.md's CLI section or run it in a tutorial"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
class TestNotebookShape:
    def test_opens_with_what_you_will_learn_and_ends_with_where_to_go_next(self, path):
        cells = _cells(path)
        assert cells[0]["cell_type"] == "markdown"
        assert "what you will learn" in _source(cells[0]).lower()
        assert cells[-1]["cell_type"] == "markdown"
        assert "where to go next" in _source(cells[-1]).lower()

    def test_is_committed_executed(self, path):
        code = [c for c in _cells(path) if c["cell_type"] == "code"]
        unrun = [i for i, c in enumerate(code) if c.get("execution_count") is None]
        assert not unrun, (
            f"{path.name}: code cells {unrun} have no stored execution; run the notebook top "
            f"to bottom and save it with its outputs"
        )
