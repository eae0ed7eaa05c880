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

__all__ = ["MIN_SHRUNK", "fit_line", "print_table", "terminal_width"]


#: The narrowest a shrinkable column gets when a table is fitted to a terminal.
MIN_SHRUNK = 10


def print_table(header: Sequence[str], rows: Iterable[Sequence[object]],
                out: TextIO | None = None, width: int | None = None,
                shrink: Sequence[int] = ()) -> None:
    """Print ``rows`` under ``header`` in aligned columns (the last one left ragged).

    Args:
        header: The column names.
        rows: The cells, row by row.
        out: Where to print (stdout by default).
        width: Fit each line to this many characters by cutting the ``shrink`` columns
            (widest first, down to :data:`MIN_SHRUNK`) and ending cut cells with ``…``.
        shrink: Indices of the columns that may be cut (free text, never names).
    """
    out = sys.stdout if out is None else out
    cells = [tuple(escape(cell) for cell in row) for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    if width is not None and shrink:
        widths = _fit(widths, header, width, shrink)
        cells = [tuple(fit_line(c, widths[i]) for i, c in enumerate(row)) for row in cells]
    line = "  ".join(f"{{:{w}}}" for w in widths[:-1]) + "  {}"
    print(fit_line(line.format(*header).rstrip(), width), file=out)
    for row in cells:
        print(fit_line(line.format(*row).rstrip(), width), file=out)


def terminal_width(fallback: int = 120) -> int:
    """The terminal's width in columns (``COLUMNS`` when set; ``fallback`` off a terminal)."""
    import shutil

    return shutil.get_terminal_size((fallback, 24)).columns


def _fit(widths: list[int], header: Sequence[str], width: int,
         shrink: Sequence[int]) -> list[int]:
    widths = list(widths)
    floor = {i: max(MIN_SHRUNK, len(header[i])) for i in shrink}
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    while excess > 0:
        candidates = [i for i in shrink if widths[i] > floor[i]]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1
    return widths


def fit_line(text: str, width: int | None) -> str:
    """``text`` cut to ``width`` characters, its last one ``…`` when anything was cut."""
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"
