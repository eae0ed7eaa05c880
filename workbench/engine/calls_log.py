"""The calls log: wall-clock telemetry of tool calls, kept beside a ledger, never hashed.

A ledger's content is deterministic; how long a call took, when it happened and which
transport carried it are not. They go to ``<ledger>.calls.jsonl``, one JSON line per
``tool.called`` or ``tool.denied`` event, keyed by the event's ``seq``::

    {"seq": 2, "tool": "oracle", "transport": "stdio:workbench", "latency_ms": 3.1,
     "at": "2026-11-30T09:58:25.123Z"}

so ``calls_frame(ledger, read_calls_log(path))`` shows a finished run's latencies later.

Model calls (``openai`` agents) are logged in the same file, marked by ``model_call`` (their
number in the run) and keyed by the seq the next event took: agent, tick, step, model,
latency, token usage, response id, source (live, record, cassette) and attempts. Read them
with :func:`read_model_calls`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

__all__ = ["CallsLog", "calls_log_path", "read_calls_log", "read_model_calls"]


def calls_log_path(ledger_path: str | Path) -> Path:
    """Where the calls log of ``ledger_path`` lives (``run.jsonl`` -> ``run.calls.jsonl``)."""
    path = Path(ledger_path)
    return path.with_name(f"{path.stem}.calls.jsonl")


class CallsLog:
    """Appends telemetry records as JSON lines; flushed with the ledger, each tick.

    Args:
        path: The calls log file.
        keep_below: When continuing a log (a resumed run), keep only records of events
            before this seq; the rest belonged to events that are being re-run.
    """

    def __init__(self, path: str | Path, keep_below: int | None = None):
        self.path = Path(path)
        kept = []
        if keep_below is not None and self.path.exists():
            kept = [line for seq, line in _lines(self.path) if seq < keep_below]
        self._fh: IO[str] | None = open(self.path, "w", encoding="utf-8")
        self._fh.writelines(kept)

    def write(self, seq: int, record: dict[str, Any]) -> None:
        """Add one call's record."""
        if self._fh is not None:
            self._fh.write(json.dumps({"seq": seq, **record}, sort_keys=True) + "\n")

    def flush(self) -> None:
        """Hand buffered records to the OS."""
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        """Flush and close (safe to call twice)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_calls_log(path: str | Path) -> dict[int, dict[str, Any]]:
    """The records of a calls log by seq (what ``calls_frame`` takes as telemetry).

    A torn last line (the run was killed mid-write) is skipped: telemetry is best effort.
    """
    out = {}
    for seq, line in _lines(Path(path)):
        record = json.loads(line)
        if "model_call" in record:
            continue
        record.pop("seq")
        out[seq] = record
    return out


def read_model_calls(path: str | Path) -> list[dict[str, Any]]:
    """The model-call records of a calls log, in order (``seq`` kept)."""
    records = (json.loads(line) for _, line in _lines(Path(path)))
    return [r for r in records if "model_call" in r]


def _lines(path: Path) -> list[tuple[int, str]]:
    found = []
    # Best effort: a damaged byte ends what is kept (the line fails to parse), never a resume.
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True):
        if not line.endswith("\n"):
            break  # torn by a kill
        try:
            found.append((int(json.loads(line)["seq"]), line))
        except (ValueError, KeyError, TypeError):
            break
    return found
