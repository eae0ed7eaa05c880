"""Exporting tables and ledgers: JSONL, CSV or Parquet, chosen by the file's suffix.

The widgets' *Export* buttons and code share these. A file is written whole or not at
all, through the package's one atomic writer (:mod:`workbench.atomic`: an unpredictable
temp file beside it, then a rename). JSONL of a ledger is the ledger file's own lines, so
``workbench verify`` checks an export of a whole run; CSV cells that a spreadsheet would
run as formulas are quoted (:func:`csv_frame`), and JSONL and Parquet keep values exact.
"""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from workbench.contracts.canonical import canonical_json
from workbench.errors import MissingDependency
from workbench.frames import events_of, ledger_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXPORT_FORMATS", "csv_frame", "export_format", "export_frame", "export_ledger"]

EXPORT_FORMATS = ("jsonl", "csv", "parquet")


def export_format(path: str | Path, format: str | None = None) -> str:
    """The export format for ``path``: ``format`` if given, else from the file's suffix.

    Raises:
        ExportError: the format is not one of :data:`EXPORT_FORMATS`.
    """
    from workbench.errors import ExportError

    fmt = (format or Path(path).suffix.lstrip(".")).lower()
    if fmt not in EXPORT_FORMATS:
        raise ExportError(path, f"unknown export format {fmt or '(no suffix)'!r}; use one "
                          f"of {', '.join(EXPORT_FORMATS)} (or a file ending in one)")
    return fmt


def csv_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells are safe in a spreadsheet (:func:`csv_cell`).

    Every CSV the workbench writes goes through this: a tool's result or error text that
    starts like a formula (``=``, ``+``, ``-``, ``@``, TAB, CR) gets a leading ``'``.
    JSONL and Parquet keep the values byte for byte.
    """
    from workbench.textsafe import csv_cell

    safe = frame.copy()
    for col in safe.columns:
        if safe[col].dtype.kind not in "biufcmM":
            safe[col] = [csv_cell(v) for v in safe[col]]
    return safe


def export_frame(frame: pd.DataFrame, path: str | Path, format: str | None = None) -> Path:
    """Write ``frame`` as JSONL, CSV or Parquet, atomically; dicts and lists become JSON text.

    CSV cells that a spreadsheet would run as formulas are quoted (:func:`csv_frame`).
    Parquet needs pyarrow (``pip install 'tool-contract-workbench[frames]'``).

    Raises:
        ExportError: unknown format, or the path cannot be written (a directory, under a
            missing directory or a file, no permission): nothing is written.
        MissingDependency: Parquet without pyarrow.
    """
    path = Path(path)
    fmt = export_format(path, format)
    flat = frame.copy()
    for col in flat.columns:
        if flat[col].dtype == object:
            flat[col] = [v if v is None or isinstance(v, str | int | float | bool)
                         else canonical_json(v) for v in flat[col]]
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise MissingDependency("pyarrow", "frames") from exc
    with _writing(path, binary=fmt == "parquet") as fh:
        if fmt == "jsonl":
            flat.to_json(fh, orient="records", lines=True, force_ascii=False)
        elif fmt == "csv":
            # Every text cell quoted: a CR in a server's text would otherwise split the row
            # for readers, since the csv module quotes only for the line terminator (LF).
            csv_frame(flat).to_csv(fh, index=False, lineterminator="\n",
                                   quoting=csv.QUOTE_NONNUMERIC)
        else:
            flat.to_parquet(fh, index=False)
    return path


def export_ledger(ledger: Any, path: str | Path, format: str | None = None) -> Path:
    """Write a ledger's events as JSONL (the ledger file's own lines), CSV or Parquet.

    JSONL is byte-identical to what a ledger store writes, so ``workbench verify`` checks
    it when the events are a whole run. CSV and Parquet hold :func:`ledger_frame`'s
    columns with the payload as canonical JSON text.

    Raises:
        ExportError: unknown format, or the path cannot be written (see
            :func:`export_frame`).
    """
    path = Path(path)
    fmt = export_format(path, format)
    events = events_of(ledger)
    if fmt != "jsonl":
        return export_frame(ledger_frame(events), path, fmt)
    from workbench.engine.ledger import Ledger

    run_id = events[0].run_id if events else "empty"
    text = Ledger(run_id, events=events).to_jsonl()
    with _writing(path) as fh:
        fh.write(text)
    return path


@contextlib.contextmanager
def _writing(path: Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """:func:`~workbench.atomic.atomic_writer` with the path checked and errors in words."""
    from workbench._files import describe_os_error
    from workbench.atomic import atomic_writer
    from workbench.errors import ExportError

    if path.is_dir():
        raise ExportError(path, f"is a directory; export to a file in it, like "
                          f"{path / 'export.csv'}")
    if not path.parent.is_dir():
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        where = (f"{blocker} is a file, not a directory" if blocker is not None
                 else f"the directory {path.parent} does not exist")
        raise ExportError(path, f"{where}; create the directory first or export elsewhere")
    try:
        with atomic_writer(path, binary=binary, mkdir=False) as fh:
            yield fh
    except OSError as exc:
        raise ExportError(path, describe_os_error(path, exc, "a file to export to")) from None
