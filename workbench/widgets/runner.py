"""ScenarioRunner: pick a scenario, seed, tick count and transport, press Run, read tables.

The runner owns no manifests and no registry: at each Run it takes the session's live
manifests (what the editors hold right now) and the session's registry for the chosen
transport, so an edit made a second ago is what this run uses. Results are shown as
tables: violations (``tool.denied``), tool calls, and the ledger in a paginated
:class:`~workbench.widgets.ledger_view.LedgerView`.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.engine.conductor import Conductor, RunResult
from workbench.errors import ConfigError
from workbench.frames import calls_frame, violations_frame
from workbench.widgets._util import ErrorArea, guarded, show, split_list, table_html
from workbench.widgets.approval_panel import ApprovalPanel
from workbench.widgets.ledger_view import LedgerView
from workbench.widgets.session import TRANSPORTS, Session

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ScenarioRunner"]

#: Rows of the violations and calls tables sent to the page; the rest stay in ``frames``.
MAX_TABLE_ROWS = 500


class ScenarioRunner(widgets.VBox):
    """Run a scenario with the session's live manifests and show what happened.

    Args:
        session: The shared session.
        scenario: The scenario to select first (the first by name when None).

    Attributes:
        result: The last run's result (None before the first run).
        frames: The last run's ``violations`` and ``calls`` frames.

    Example:
        >>> runner = ScenarioRunner(Session.from_config("config"), "oracle-grove")  # doctest: +SKIP
        >>> runner.run().final_hash  # doctest: +SKIP
        '...'
    """

    def __init__(self, session: Session, scenario: str | None = None, **kwargs: Any):
        names = sorted(session.config.scenarios)
        if not names:
            raise ConfigError(session.root / "scenarios", "", "no scenarios; add one first")
        self.session = session
        self.result: RunResult | None = None
        self.frames: dict[str, pd.DataFrame] = {}
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self._last_percent = -1
        self._chosen_transport = TRANSPORTS[0]
        #: Called with each finished run's result (the Workbench refreshes the grants).
        self.after_run: list[Callable[[RunResult], None]] = []

        self.scenario_select = widgets.Dropdown(options=names, value=scenario or names[0],
                                                description="Scenario")
        self.seed = widgets.IntText(description="Seed", layout=widgets.Layout(width="14em"))
        self.ticks = widgets.BoundedIntText(min=0, max=1_000_000, description="Ticks",
                                            layout=widgets.Layout(width="14em"))
        self.transport = widgets.ToggleButtons(options=TRANSPORTS, value=TRANSPORTS[0],
                                               description="Transport")
        self.approve = widgets.Text(
            description="Approve", layout=widgets.Layout(width="40em"),
            placeholder="tools whose unconfirmed calls may run: get_current_time, echo (* = all)",
            tooltip="An untrusted server's tools are treated as destructive, so each call "
                    "needs approval; calls to tools not listed here are refused (not approved)",
        )
        self.run_button = widgets.Button(description="Run", icon="play",
                                         button_style="primary")
        self.progress = widgets.IntProgress(min=0, max=1, value=0, description="Progress")
        self.summary = widgets.HTML()
        self.approvals = ApprovalPanel(on_approve=self._approve_and_rerun)
        self.violations_title = widgets.HTML("<b>Violations</b>")
        self.violations_output = widgets.Output()
        self.calls_title = widgets.HTML("<b>Tool calls</b>")
        self.calls_output = widgets.Output()
        self.ledger_view = LedgerView()
        super().__init__(children=[
            widgets.HBox([self.scenario_select, self.seed, self.ticks]),
            self.transport,
            self.approve,
            widgets.HBox([self.run_button, self.progress]),
            self.summary,
            self.error_area,
            self.approvals,
            self.violations_title,
            self.violations_output,
            self.calls_title,
            self.calls_output,
            widgets.HTML("<b>Ledger</b>"),
            self.ledger_view,
        ], **kwargs)

        self.scenario_select.observe(self._on_scenario, names=["value"])
        self.run_button.on_click(self._on_run)
        self._use_defaults(self.scenario_select.value)

    # -- public API -------------------------------------------------------------------
    def run(self) -> RunResult:
        """Run the selected scenario with the session's live manifests and show the result.

        Raises:
            ConfigError: the scenario casts an agent the session has no manifest for.
            MissingDependency: MCP was chosen and the MCP extra is not installed.
        """
        session = self.session
        scenario = session.config.scenario(self.scenario_select.value)
        missing = [name for name in scenario.cast if name not in session.manifests]
        if missing:
            raise ConfigError(session.root / "agents", "", f"scenario {scenario.name!r} casts "
                              f"{', '.join(missing)} but there is no such manifest; add it")
        manifests = [session.manifests[name] for name in scenario.cast]
        ticks = self.ticks.value
        self.progress.max = max(ticks, 1)
        self.progress.value = 0
        self.progress.bar_style = ""
        self._last_percent = -1
        self.summary.value = (f"starting the MCP servers of {html.escape(scenario.name)}…"
                              if scenario.servers else f"running {html.escape(scenario.name)}…")
        self.run_button.disabled = True  # a second click while running would interleave runs
        started = time.perf_counter()
        from workbench.surface.approval import ApprovalPolicy

        policy = ApprovalPolicy(allow=split_list(self.approve.value))
        session.approver = policy
        try:
            registry = session.registry_for(self.transport.value, scenario)
            conductor = Conductor(scenario, manifests, registry, seed=self.seed.value,
                                  progress=self._on_progress)
            result = conductor.run(ticks)
        except BaseException:
            self.progress.bar_style = "danger"
            self.summary.value = ""
            raise
        finally:
            self.run_button.disabled = False
        elapsed = time.perf_counter() - started
        self.progress.value = self.progress.max
        self.progress.bar_style = "success"
        self._show_result(result, elapsed)
        self.approvals.show(policy.refused)
        for callback in self.after_run:
            callback(result)
        return result

    # -- display ----------------------------------------------------------------------
    def _show_result(self, result: RunResult, elapsed: float) -> None:
        self.result = result
        violations = violations_frame(result)
        calls = calls_frame(result)
        self.frames = {"violations": violations, "calls": calls}
        self.summary.value = (
            f"{html.escape(result.ledger.run_id)} over {html.escape(self.transport.value)}: "
            f"{result.ticks} ticks (ended by {html.escape(result.reason)}), {len(result.ledger):,} "
            f"events, {len(violations):,} violations, {len(calls):,} tool calls in "
            f"{elapsed:.2f} s &middot; final hash <code>{result.final_hash[:16]}</code>"
        )
        self.violations_title.value = f"<b>Violations ({len(violations):,})</b>"
        self.calls_title.value = f"<b>Tool calls ({len(calls):,})</b>"
        _show_table(self.violations_output, violations, "wb-violations", "No violations.")
        _show_table(self.calls_output, calls, "wb-calls", "No tool calls.")
        self.ledger_view.show(result)

    def _use_defaults(self, name: str) -> None:
        scenario = self.session.config.scenario(name)
        self.seed.value = scenario.default_seed
        self.ticks.value = scenario.governor.max_ticks
        # A scenario with its own servers runs over them: the choice would be a lie.
        if scenario.servers:
            self._chosen_transport = self.transport.value
            self.transport.value = "MCP"
            self.transport.disabled = True
            self.transport.tooltip = ("this scenario runs over its own MCP servers: "
                                      + ", ".join(s.name for s in scenario.servers))
        elif self.transport.disabled:
            self.transport.disabled = False
            self.transport.value = self._chosen_transport
            self.transport.tooltip = None

    # -- callbacks --------------------------------------------------------------------
    def _on_progress(self, tick: int, total: int) -> None:
        # One message to the browser per percent, not per tick: a long run stays fast.
        percent = tick * 100 // max(total, 1)
        if percent != self._last_percent:
            self._last_percent = percent
            self.progress.value = tick

    @guarded
    def _on_scenario(self, change: dict[str, Any]) -> None:
        self._use_defaults(change["new"])

    @guarded
    def _on_run(self, _button: widgets.Button) -> None:
        self.run()

    @guarded
    def _approve_and_rerun(self, tools: list[str]) -> None:
        approved = split_list(self.approve.value)
        self.approve.value = ", ".join([*approved, *(t for t in tools if t not in approved)])
        self.run()

    def __repr__(self) -> str:
        last = self.result.ledger.run_id if self.result is not None else None
        return f"ScenarioRunner(scenario={self.scenario_select.value!r}, last_run={last!r})"


def _show_table(output: widgets.Output, frame: pd.DataFrame, css: str, empty: str) -> None:
    if frame.empty:
        show(output, f"<p><i>{html.escape(empty)}</i></p>")
        return
    shown = frame.head(MAX_TABLE_ROWS)
    parts = [table_html(shown, css, wrap=("params", "detail"))]
    if len(frame) > len(shown):
        parts.append(f"<p><i>first {len(shown):,} of {len(frame):,} rows; the runner's "
                     f"<code>frames</code> hold them all</i></p>")
    show(output, *parts)
