"""PagedTable: any DataFrame one page at a time, with the ledger view's page buttons.

The runner's violations and calls tables can hold thousands of rows after a long run; all
of them on the page made the widget tens of thousands of pixels tall. The frame stays on
the Python side and only the current page is sent to the browser.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.widgets.display import ErrorArea, guarded, show, table_html

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PagedTable"]


class PagedTable(widgets.VBox):
    """A DataFrame shown one page at a time.

    Args:
        css: CSS class of the table (tests and the browser find it by this).
        empty: What to say when the frame is empty.
        page_size: Rows per page.
        wrap: Columns whose text may wrap.

    Example:
        >>> table = PagedTable("wb-calls", "No tool calls.", page_size=20)  # doctest: +SKIP
        >>> table.show(calls); table.go_to(1)  # doctest: +SKIP
    """

    def __init__(self, css: str, empty: str, page_size: int = 25,
                 wrap: tuple[str, ...] = (), **kwargs: Any):
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}")
        self.css, self.empty, self.page_size, self.wrap = css, empty, page_size, wrap
        self.frame: pd.DataFrame | None = None
        self.page = 0
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        small = widgets.Layout(width="3em")
        self.first_button = widgets.Button(icon="fast-backward", tooltip="First page",
                                           layout=small)
        self.prev_button = widgets.Button(icon="step-backward", tooltip="Previous page",
                                          layout=small)
        self.next_button = widgets.Button(icon="step-forward", tooltip="Next page",
                                          layout=small)
        self.last_button = widgets.Button(icon="fast-forward", tooltip="Last page",
                                          layout=small)
        self.page_label = widgets.HTML()
        self.pager = widgets.HBox([self.first_button, self.prev_button, self.next_button,
                                   self.last_button, self.page_label])
        self.table = widgets.Output()
        super().__init__(children=[self.pager, self.table, self.error_area], **kwargs)
        self.first_button.on_click(lambda _b: self._on_page(0))
        self.prev_button.on_click(lambda _b: self._on_page(self.page - 1))
        self.next_button.on_click(lambda _b: self._on_page(self.page + 1))
        self.last_button.on_click(lambda _b: self._on_page(self.page_count - 1))
        self.clear()

    @property
    def rows(self) -> int:
        """Rows of the frame shown (0 when cleared)."""
        return 0 if self.frame is None else len(self.frame)

    @property
    def page_count(self) -> int:
        """Pages of rows (at least 1)."""
        return max(1, -(-self.rows // self.page_size))

    def show(self, frame: pd.DataFrame) -> None:
        """Show ``frame`` from its first page."""
        self.frame = frame
        self.page = 0
        self._render()

    def clear(self) -> None:
        """Show nothing (the pager is hidden until a frame is shown)."""
        self.frame = None
        self.page = 0
        self.table.outputs = ()
        self.pager.layout.display = "none"

    def go_to(self, page: int) -> None:
        """Show page ``page`` (0-based, clamped to the pages there are)."""
        self.page = min(max(page, 0), self.page_count - 1)
        self._render()

    def page_frame(self) -> pd.DataFrame | None:
        """The rows of the current page (None when cleared)."""
        if self.frame is None:
            return None
        start = self.page * self.page_size
        return self.frame.iloc[start:start + self.page_size]

    def _render(self) -> None:
        frame = self.page_frame()
        if frame is None:
            self.clear()
            return
        if frame.empty:
            self.pager.layout.display = "none"
            show(self.table, f"<p><i>{html.escape(self.empty)}</i></p>")
            return
        # One page needs no buttons; more pages do.
        self.pager.layout.display = None if self.page_count > 1 else "none"
        start = self.page * self.page_size
        self.page_label.value = (f"page {self.page + 1:,} of {self.page_count:,} &middot; "
                                 f"rows {start + 1:,}–{start + len(frame):,} of {self.rows:,}")
        self.first_button.disabled = self.prev_button.disabled = self.page == 0
        self.next_button.disabled = self.last_button.disabled = (
            self.page >= self.page_count - 1)
        show(self.table, table_html(frame, self.css, wrap=self.wrap))

    @guarded
    def _on_page(self, page: int) -> None:
        self.go_to(page)

    def __repr__(self) -> str:
        return f"PagedTable({self.css!r}, rows={self.rows}, page={self.page + 1}/{self.page_count})"
