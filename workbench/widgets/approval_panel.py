"""ApprovalPanel: the calls a run refused for want of approval, and a way to approve them.

A run cannot stop to ask: while the Run button's callback executes, the kernel handles no
widget messages, so a yes/no clicked mid-run would only arrive after the run. The panel
asks afterwards instead. It lists each tool whose calls were refused ``not approved``, with
the server that offers it and why confirmation was needed (an untrusted server's hints are
not believed; a tool without ``readOnlyHint`` may change things). Ticking a tool and
pressing *Approve and run again* adds it to the runner's Approve list and runs again, so
every approval is a visible, deliberate act, and stays listed in the Approve field.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from workbench.widgets._util import ErrorArea, guarded

__all__ = ["ApprovalPanel"]


class ApprovalPanel(widgets.VBox):
    """Refused calls, grouped by tool, each with a checkbox to approve it.

    Args:
        on_approve: Called with the ticked tool names when the button is pressed.

    Attributes:
        boxes: One checkbox per refused tool, by tool name.
    """

    def __init__(self, on_approve: Callable[[list[str]], Any], **kwargs: Any):
        self.on_approve = on_approve
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self.boxes: dict[str, widgets.Checkbox] = {}
        self.title = widgets.HTML()
        self.approve_button = widgets.Button(
            description="Approve and run again", icon="check", button_style="warning",
            tooltip="add the ticked tools to Approve, then run again", disabled=True,
            layout=widgets.Layout(width="auto"))  # the default width cuts the label off
        self.approve_button.on_click(self._on_approve)
        super().__init__(children=[], **kwargs)
        self.layout.display = "none"

    def show(self, refused: Sequence[Any]) -> None:
        """Show ``refused`` approval requests (``ApprovalRequest``); hide when there are none."""
        by_tool: dict[str, list[Any]] = {}
        for request in refused:
            by_tool.setdefault(request.tool, []).append(request)
        self.boxes = {}
        rows: list[widgets.Widget] = []
        for tool in sorted(by_tool):
            requests = by_tool[tool]
            first = requests[0]
            agents = ", ".join(sorted({r.agent for r in requests}))
            box = widgets.Checkbox(value=False, indent=False, description=tool,
                                   layout=widgets.Layout(width="16em"))
            box.observe(self._on_tick, names=["value"])
            self.boxes[tool] = box
            detail = widgets.HTML(
                f"{len(requests)} call(s) by {html.escape(agents)} to "
                f"<b>{html.escape(first.server)}</b> refused: {html.escape(first.why)}")
            rows.append(widgets.HBox([box, detail]))
        self.title.value = (f"<b>Awaiting approval ({len(by_tool)})</b>: calls refused as "
                            f"<i>not approved</i>. Approve only what you trust to run.")
        self.approve_button.disabled = True
        self.children = ([self.title, *rows, self.approve_button, self.error_area]
                         if rows else [])
        self.layout.display = None if rows else "none"

    @property
    def selected(self) -> list[str]:
        """The ticked tools, sorted."""
        return sorted(tool for tool, box in self.boxes.items() if box.value)

    @guarded
    def _on_tick(self, _change: dict[str, Any]) -> None:
        self.approve_button.disabled = not self.selected

    @guarded
    def _on_approve(self, _button: widgets.Button) -> None:
        self.on_approve(self.selected)

    def __repr__(self) -> str:
        return f"ApprovalPanel(refused={sorted(self.boxes)})"
