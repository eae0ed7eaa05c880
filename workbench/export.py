"""Exporting tables and ledgers: JSONL, CSV or Parquet, chosen by the file's suffix.

The widgets' *Export* buttons and code share these. A file is written whole or not at
all (a temporary file beside it, then a rename). JSONL of a ledger is the ledger file's
own lines, so ``workbench verify`` checks an export of a whole run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.contracts.events import canonical_json
from workbench.errors import MissingDependency
from workbench.frames import events_of, ledger_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXPORT_FORMATS", "export_format", "export_frame", "export_ledger"]

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


def export_frame(frame: pd.DataFrame, path: str | Path, format: str | None = None) -> Path:
    """Write ``frame`` as JSONL, CSV or Parquet, atomically; dicts and lists become JSON text.

    Parquet needs pyarrow (``pip install 'tool-contract-workbench[frames]'``).

    Raises:
        ExportError: unknown format.
        MissingDependency: Parquet without pyarrow.
    """
    path = Path(path)
    fmt = export_format(path, format)
    flat = frame.copy()
    for col in flat.columns:
        if flat[col].dtype == object:
            flat[col] = [v if v is None or isinstance(v, str | int | float | bool)
                         else canonical_json(v) for v in flat[col]]
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if fmt == "jsonl":
            flat.to_json(tmp, orient="records", lines=True, force_ascii=False)
        elif fmt == "csv":
            flat.to_csv(tmp, index=False)
        else:
            try:
                import pyarrow  # noqa: F401
            except ImportError as exc:
                raise MissingDependency("pyarrow", "frames") from exc
            flat.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def export_ledger(ledger: Any, path: str | Path, format: str | None = None) -> Path:
    """Write a ledger's events as JSONL (the ledger file's own lines), CSV or Parquet.

    JSONL is byte-identical to what a ledger store writes, so ``workbench verify`` checks
    it when the events are a whole run. CSV and Parquet hold :func:`ledger_frame`'s
    columns with the payload as canonical JSON text.
    """
    path = Path(path)
    fmt = export_format(path, format)
    events = events_of(ledger)
    if fmt != "jsonl":
        return export_frame(ledger_frame(events), path, fmt)
    from workbench.engine.ledger import Ledger

    run_id = events[0].run_id if events else "empty"
    text = Ledger(run_id, events=events).to_jsonl()
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
