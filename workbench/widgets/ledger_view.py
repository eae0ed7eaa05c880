"""LedgerView: browse a ledger of any size one page at a time, filtered.

A ledger can hold hundreds of thousands of events. The view keeps the events on the
Python side and sends the browser only the current page: the widget state (what the
frontend holds and what a saved notebook stores) is one page of HTML plus the filter
choices, whatever the ledger's size. Filters (agent, kind, tick range) select events by
index; a frame is built only for the page shown, or for :meth:`LedgerView.frame` on demand.
*Export* writes the filtered events (all of them with no filter) as JSONL (the ledger
file's own lines, which ``workbench verify`` checks for a whole run), CSV or Parquet.
"""

from __future__ import annotations

import html
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.contracts.events import Event
from workbench.export import export_ledger
from workbench.frames import events_of, ledger_frame
from workbench.widgets.display import ErrorArea, guarded, show, table_html

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ALL", "LedgerView"]

#: The filter choice that selects everything.
ALL = "(all)"


class LedgerView(widgets.VBox):
    """A paginated, filterable table of ledger events.

    Args:
        ledger: A Ledger, RunResult or list of events (empty when None).
        page_size: Events per page.

    Example:
        >>> view = LedgerView(result, page_size=25)  # doctest: +SKIP
        >>> view.agent_filter.value = "fortune-teller"  # doctest: +SKIP
        >>> view.frame()  # the filtered events as a DataFrame  # doctest: +SKIP
    """

    def __init__(self, ledger: Any = None, page_size: int = 50, **kwargs: Any):
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}")
        self.page_size = page_size
        self.page = 0
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self._events: list[Event] = []
        self._ticks: list[int] = []
        self._matches: list[int] | range = range(0)
        self._quiet = False
        self._in_tick_order = True

        self.agent_filter = widgets.Dropdown(options=[ALL], description="Agent")
        self.kind_filter = widgets.Dropdown(options=[ALL], description="Kind")
        self.tick_range = widgets.IntRangeSlider(value=(0, 0), min=0, max=0, description="Ticks",
                                                 continuous_update=False)
        self.show_payload = widgets.Checkbox(description="payload", indent=False,
                                             tooltip="Show each event's full payload")
        self.first_button = widgets.Button(icon="fast-backward", tooltip="First page",
                                           layout=widgets.Layout(width="3em"))
        self.prev_button = widgets.Button(icon="step-backward", tooltip="Previous page",
                                          layout=widgets.Layout(width="3em"))
        self.next_button = widgets.Button(icon="step-forward", tooltip="Next page",
                                          layout=widgets.Layout(width="3em"))
        self.last_button = widgets.Button(icon="fast-forward", tooltip="Last page",
                                          layout=widgets.Layout(width="3em"))
        self.page_label = widgets.HTML()
        self.table = widgets.Output()
        self.export_path = widgets.Text(value="ledger.jsonl", description="Export to",
                                        layout=widgets.Layout(width="24em"),
                                        tooltip="a file ending in .jsonl, .csv or .parquet")
        self.export_button = widgets.Button(description="Export", icon="download",
                                            tooltip="Write the filtered events to the file")
        self.export_status = widgets.HTML()
        super().__init__(children=[
            widgets.HBox([self.agent_filter, self.kind_filter]),
            widgets.HBox([self.tick_range, self.show_payload]),
            widgets.HBox([self.first_button, self.prev_button, self.next_button,
                          self.last_button, self.page_label]),
            self.table,
            widgets.HBox([self.export_path, self.export_button, self.export_status]),
            self.error_area,
        ], **kwargs)

        for control in (self.agent_filter, self.kind_filter, self.tick_range):
            control.observe(self._on_filter, names=["value"])
        self.show_payload.observe(self._on_payload, names=["value"])
        self.first_button.on_click(lambda _b: self._on_page(0))
        self.prev_button.on_click(lambda _b: self._on_page(self.page - 1))
        self.next_button.on_click(lambda _b: self._on_page(self.page + 1))
        self.last_button.on_click(lambda _b: self._on_page(self.page_count - 1))
        self.export_button.on_click(self._on_export)
        self.show(ledger)

    # -- public API -------------------------------------------------------------------
    def show(self, ledger: Any) -> None:
        """Show another ledger (a Ledger, RunResult or list of events; None empties it)."""
        self._events = [] if ledger is None else events_of(ledger)
        self._ticks = [e.tick for e in self._events]
        actors = sorted({e.actor for e in self._events})
        kinds = sorted({e.kind for e in self._events})
        # A run's ledger is in tick order; a hand-built list may not be (see _filter).
        self._in_tick_order = all(
            a <= b for a, b in zip(self._ticks, self._ticks[1:], strict=False)
        )
        top = max(self._ticks, default=0)
        self._quiet = True  # one render at the end, not one per control
        try:
            self.agent_filter.options = [ALL, *actors]
            self.agent_filter.value = ALL
            self.kind_filter.options = [ALL, *kinds]
            self.kind_filter.value = ALL
            self.tick_range.max = max(top, self.tick_range.min)
            self.tick_range.value = (0, top)
        finally:
            self._quiet = False
        self._filter()

    @property
    def matches(self) -> int:
        """How many events pass the filters."""
        return len(self._matches)

    @property
    def page_count(self) -> int:
        """Pages of filtered events (at least 1, for an empty page)."""
        return max(1, -(-len(self._matches) // self.page_size))

    def page_events(self) -> list[Event]:
        """The events on the current page."""
        start = self.page * self.page_size
        return [self._events[i] for i in self._matches[start:start + self.page_size]]

    def go_to(self, page: int) -> None:
        """Show page ``page`` (0-based, clamped to the pages there are)."""
        self.page = min(max(page, 0), self.page_count - 1)
        self._render()

    def frame(self) -> pd.DataFrame:
        """Every filtered event (not only the page) as a ledger frame."""
        return ledger_frame([self._events[i] for i in self._matches])

    def export(self, path: str | Path | None = None, format: str | None = None) -> Path:
        """Write the filtered events to ``path`` (the *Export to* field when None).

        Args:
            path: A file ending in ``.jsonl``, ``.csv`` or ``.parquet``.
            format: One of those, when the suffix says something else.

        Raises:
            ExportError: unknown format (nothing is written).
        """
        written = export_ledger([self._events[i] for i in self._matches],
                                path or self.export_path.value, format)
        # The file's name, not its path: the status is widget state, kept in saved notebooks.
        self.export_status.value = (f"wrote {len(self._matches):,} events to "
                                    f"{html.escape(written.name)}")
        return written

    # -- filtering and rendering ------------------------------------------------------
    def _filter(self) -> None:
        agent, kind = self.agent_filter.value, self.kind_filter.value
        low, high = self.tick_range.value
        events, ticks = self._events, self._ticks
        if self._in_tick_order:
            # The tick range is then one slice, found by bisection instead of a scan.
            indices: Any = range(bisect_left(ticks, low), bisect_right(ticks, high))
        else:
            indices = [i for i, t in enumerate(ticks) if low <= t <= high]
        if agent != ALL:
            indices = [i for i in indices if events[i].actor == agent]
        if kind != ALL:
            indices = [i for i in indices if events[i].kind == kind]
        self._matches = indices
        self.page = 0
        self._render()

    def _render(self) -> None:
        page = self.page_events()
        total, shown = len(self._events), len(self._matches)
        start = self.page * self.page_size
        if page:
            where = f"events {start + 1:,}–{start + len(page):,} of {shown:,}"
        else:
            where = "no events" if not total else "no events match the filters"
        if shown != total:
            where += f" (filtered from {total:,})"
        self.page_label.value = (
            f"page {self.page + 1:,} of {self.page_count:,} &middot; {html.escape(where)}"
        )
        self.first_button.disabled = self.prev_button.disabled = self.page == 0
        self.next_button.disabled = self.last_button.disabled = (
            self.page >= self.page_count - 1
        )
        if not page:
            show(self.table, f"<p><i>{html.escape(where)}</i></p>")
            return
        frame = ledger_frame(page)
        # The full hash is 64 characters of noise on screen; 12 identify an event.
        frame["hash"] = frame["hash"].str.slice(0, 12)
        if not self.show_payload.value:
            frame = frame.drop(columns=["payload"])
        show(self.table, table_html(frame, "wb-ledger", wrap=("summary", "payload")))

    # -- callbacks --------------------------------------------------------------------
    @guarded
    def _on_filter(self, _change: dict[str, Any]) -> None:
        if not self._quiet:
            self._filter()

    @guarded
    def _on_payload(self, _change: dict[str, Any]) -> None:
        self._render()

    @guarded
    def _on_page(self, page: int) -> None:
        self.go_to(page)

    @guarded
    def _on_export(self, _button: widgets.Button) -> None:
        self.export()

    def __repr__(self) -> str:
        return (f"LedgerView(events={len(self._events)}, matches={len(self._matches)}, "
                f"page={self.page + 1}/{self.page_count})")
