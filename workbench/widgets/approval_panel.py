"""ApprovalPanel: the calls a run refused for want of approval, and a way to approve them.

A run cannot stop to ask: while the Run button's callback executes, the kernel handles no
widget messages, so a yes/no clicked mid-run would only arrive after the run. The panel
asks afterwards instead. It lists each tool whose calls were refused ``not approved``, with
the server that offers it and why confirmation was needed (an untrusted server's hints are
not believed; a tool without ``readOnlyHint`` may change things). Ticking a tool and
pressing *Approve and run again* adds it to the runner's Approve list and runs again, so
every approval is a visible, deliberate act, and stays listed in the Approve field.

Calls refused as ``pin drift`` are listed too, each tool with the refusal's ``detail``
from the ledger: which drift it is (fields changed, the same tool from a server of
another name, or no server offering it) and what resolves it. Approving a call cannot:
a pin is changed by re-pinning (``workbench surface approve``) or by naming the server as
it was pinned, so these rows have no checkbox.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from workbench.surface.overlay import PinDrift
from workbench.widgets.display import ErrorArea, guarded

__all__ = ["ApprovalPanel"]

PIN_DRIFT = PinDrift.reason_code


class ApprovalPanel(widgets.VBox):
    """Refused calls, grouped by tool, each with a checkbox to approve it.

    Args:
        on_approve: Called with the ticked tool names when the button is pressed.

    Attributes:
        boxes: One checkbox per refused tool, by tool name.
        drift: The tools refused as pin drift, sorted (listed with why, no checkbox).
    """

    def __init__(self, on_approve: Callable[[list[str]], Any], **kwargs: Any):
        self.on_approve = on_approve
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self.boxes: dict[str, widgets.Checkbox] = {}
        #: Tools refused as pin drift in the last run shown, sorted.
        self.drift: list[str] = []
        self.title = widgets.HTML()
        self.drift_title = widgets.HTML()
        self.approve_button = widgets.Button(
            description="Approve and run again", icon="check", button_style="warning",
            tooltip="add the ticked tools to Approve, then run again", disabled=True,
            layout=widgets.Layout(width="auto"))  # the default width cuts the label off
        self.approve_button.on_click(self._on_approve)
        super().__init__(children=[], **kwargs)
        self.layout.display = "none"

    def show(self, refused: Sequence[Any], denied: Sequence[Any] = ()) -> None:
        """Show the calls a run refused; hide when there are none.

        Args:
            refused: Approval requests the approver said no to (``ApprovalRequest``).
            denied: The run's ``tool.denied`` events; those refused as ``pin drift`` are
                listed with their ``detail``.
        """
        drifted = self._drift_rows(denied)
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
        children: list[widgets.Widget] = []
        if rows:
            children += [self.title, *rows, self.approve_button]
        if drifted:
            children += [self.drift_title, *drifted]
        self.children = [*children, self.error_area] if children else []
        self.layout.display = None if children else "none"

    def _drift_rows(self, denied: Sequence[Any]) -> list[widgets.HTML]:
        """One row per tool refused as pin drift: who called it and the refusal's detail."""
        by_tool: dict[str, list[Any]] = {}
        for event in denied:
            payload = event.payload if isinstance(event.payload, dict) else {}
            if payload.get("reason") == PIN_DRIFT:
                by_tool.setdefault(str(payload.get("tool")), []).append(event)
        rows = []
        for tool in sorted(by_tool):
            events = by_tool[tool]
            agents = ", ".join(sorted({str(e.actor) for e in events}))
            # The detail names servers and tools: text from config and servers, escaped.
            detail = str(events[0].payload.get("detail") or "its pin no longer matches")
            rows.append(widgets.HTML(
                f"<b>{html.escape(tool)}</b>: {len(events)} call(s) by {html.escape(agents)} "
                f"refused as <i>pin drift</i>: {html.escape(detail)}"))
        self.drift_title.value = (f"<b>Pin drift ({len(rows)})</b>: calls refused because "
                                  f"what is offered is not what was pinned. Approving a call "
                                  f"does not change that:")
        self.drift = sorted(by_tool)
        return rows

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
        return f"ApprovalPanel(refused={sorted(self.boxes)}, drift={self.drift})"
