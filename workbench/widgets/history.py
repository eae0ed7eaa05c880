"""The call history of a session: every call made by hand or by a run, exportable.

A run's calls are on its ledger, but a notebook session makes many runs and some calls by
hand (the ToolCaller). :class:`CallHistory` keeps one row per call, newest last, whatever
made it, with its params and what it returned; :class:`HistoryView` pages through it and
exports it as JSONL, CSV or Parquet. The history is bounded (oldest rows dropped first),
so a session of long runs does not grow without end.
"""

from __future__ import annotations

import html
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.contracts.events import TOOL_CALLED, TOOL_DENIED
from workbench.widgets.display import ErrorArea, guarded
from workbench.widgets.paged_table import PagedTable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HISTORY_COLUMNS", "CallHistory", "HistoryView"]

HISTORY_COLUMNS = ["n", "source", "seq", "tick", "agent", "tool", "outcome", "params", "result",
                   "transport", "latency_ms"]


class CallHistory:
    """Every tool call of a session, by hand or by a run, newest last.

    Args:
        limit: Rows kept; the oldest go first.

    Example:
        >>> history = CallHistory()
        >>> history.record("hand", "fortune-teller", "oracle", {"seed": "dawn"}, "ok",
        ...                {"omen": "A heron stands still in moving water.", "index": 0})
        >>> len(history)
        1
    """

    def __init__(self, limit: int = 100_000):
        self.limit = limit
        self._rows: deque[tuple[Any, ...]] = deque(maxlen=limit)
        self._count = 0
        #: Called after every change (the view re-renders).
        self.listeners: list[Any] = []

    def record(self, source: str, agent: str, tool: str, params: Any, outcome: str,
               result: Any, *, seq: int | None = None, tick: int | None = None,
               transport: str | None = None, latency_ms: float | None = None) -> None:
        """Add one call.

        Args:
            source: ``hand`` for a call made from the ToolCaller, else the run's id.
            agent: The agent the call was made as.
            tool: The tool called.
            params: The arguments sent.
            outcome: ``ok``, an error kind, or ``denied``.
            result: The tool's result dict, the error dict, or the refusal's reason.
            seq: The call's ledger seq, if it has one.
            tick: The tick it was made in, if any.
            transport: ``in-process`` or the server's transport label.
            latency_ms: How long it took.
        """
        self._add(source, seq, tick, agent, tool, outcome, params, result, transport,
                  latency_ms)
        self._changed()

    def record_outcome(self, outcome: Any, source: str = "hand") -> None:
        """Add one call made by hand.

        Args:
            outcome: What the ToolCaller's call gave (a ``CallOutcome``: agent, tool,
                params, outcome, result, error or reason, its event, transport, latency).
            source: The history's ``source`` for it.
        """
        value = (outcome.result if outcome.outcome == "ok"
                 else outcome.error or outcome.reason)
        event = getattr(outcome, "event", None)
        self.record(source, outcome.agent, outcome.tool, dict(outcome.params), outcome.outcome,
                    value, seq=getattr(event, "seq", None), tick=getattr(event, "tick", None),
                    transport=outcome.transport, latency_ms=outcome.latency_ms)

    def record_run(self, result: Any) -> int:
        """Add every call of a finished run (a RunResult); returns how many."""
        telemetry = getattr(result, "telemetry", None) or {}
        run_id = result.ledger.run_id
        added = 0
        for e in result.ledger:
            if e.kind == TOOL_CALLED:
                error = e.payload.get("error")
                outcome = error["kind"] if error else "ok"
                value = error or e.payload.get("result")
            elif e.kind == TOOL_DENIED:
                outcome, value = "denied", e.payload.get("reason")
            else:
                continue
            tel = telemetry.get(e.seq, {})
            self._add(run_id, e.seq, e.tick, e.actor, e.payload.get("tool"), outcome,
                      e.payload.get("params"), value, tel.get("transport"),
                      tel.get("latency_ms"))
            added += 1
        self._changed()
        return added

    def _add(self, *row: Any) -> None:
        self._count += 1
        self._rows.append((self._count, *row))

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()

    def clear(self) -> None:
        """Forget every call."""
        self._rows.clear()
        self._changed()

    def frame(self) -> pd.DataFrame:
        """The history as a DataFrame (columns :data:`HISTORY_COLUMNS`), oldest first."""
        import pandas as pd

        frame = pd.DataFrame(list(self._rows), columns=HISTORY_COLUMNS)
        frame["latency_ms"] = frame["latency_ms"].astype("Float64")
        for col in ("seq", "tick"):
            frame[col] = frame[col].astype("Int64")
        return frame

    def export(self, path: str | Path, format: str | None = None) -> Path:
        """Write the history as JSONL, CSV or Parquet (by ``format`` or the file's suffix)."""
        from workbench.export import export_frame

        return export_frame(self.frame(), path, format)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"CallHistory({len(self)} calls)"


class HistoryView(widgets.VBox):
    """The session's call history, paged, newest first, with an export button.

    Args:
        history: The history to show.
        page_size: Rows per page.
    """

    def __init__(self, history: CallHistory, page_size: int = 20, **kwargs: Any):
        self.history = history
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self.title = widgets.HTML()
        self.table = PagedTable("wb-history", "No calls yet: run a scenario or call a tool.",
                                page_size=page_size, wrap=("params", "result"))
        self.path = widgets.Text(value="calls.jsonl", description="Export to",
                                 layout=widgets.Layout(width="24em"),
                                 tooltip="a file ending in .jsonl, .csv or .parquet")
        self.export_button = widgets.Button(description="Export", icon="download")
        self.export_status = widgets.HTML()
        super().__init__(children=[
            self.title, self.table,
            widgets.HBox([self.path, self.export_button, self.export_status]),
            self.error_area,
        ], **kwargs)
        self.export_button.on_click(self._on_export)
        history.listeners.append(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Show the history as it is now (newest first)."""
        frame = self.history.frame()
        self.title.value = f"<b>Call history ({len(frame):,})</b>"
        self.table.show(frame.iloc[::-1].reset_index(drop=True))

    def export(self, path: str | Path | None = None) -> Path:
        """Export the history to ``path`` (the field's value when None)."""
        written = self.history.export(path or self.path.value)
        self.export_status.value = (f"wrote {len(self.history):,} calls to "
                                    f"{html.escape(written.name)}")
        return written

    @guarded
    def _on_export(self, _button: widgets.Button) -> None:
        self.export()

    def __repr__(self) -> str:
        return f"HistoryView({self.history!r})"
