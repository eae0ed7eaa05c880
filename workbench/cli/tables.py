"""The CLI's one table printer: aligned columns of escaped cells.

Every table the CLI prints (a ledger, violations, scenarios, pin drift, audit findings,
selection scores) goes through :func:`print_table`. Cells hold names and text that servers
and models wrote: a CR, LF or ANSI code printed raw would rewrite the row it is in or forge
another, so every cell is escaped (:func:`workbench.textsafe.escape`).

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> print_table(("tool", "reason"), [("oracle", "not granted")], out)
    >>> print(out.getvalue(), end="")
    tool    reason
    oracle  not granted
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import TextIO

from workbench.textsafe import escape

__all__ = ["print_table"]


def print_table(header: Sequence[str], rows: Iterable[Sequence[object]],
                out: TextIO | None = None) -> None:
    """Print ``rows`` under ``header`` in aligned columns (the last one left ragged)."""
    out = sys.stdout if out is None else out
    cells = [tuple(escape(cell) for cell in row) for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    line = "  ".join(f"{{:{w}}}" for w in widths[:-1]) + "  {}"
    print(line.format(*header).rstrip(), file=out)
    for row in cells:
        print(line.format(*row).rstrip(), file=out)
