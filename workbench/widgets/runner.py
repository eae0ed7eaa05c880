"""ScenarioRunner: pick a scenario, seed, tick count and transport, press Run, read tables.

The runner owns no manifests and no registry: at each Run it takes the session's live
manifests (what the editors hold right now) and the session's registry for the chosen
transport, so an edit made a second ago is what this run uses. Results are shown as
tables, each one page at a time: violations (``tool.denied``), tool calls (with their
params and results on request), what changed since the previous run of the same
scenario, and the ledger in a :class:`~workbench.widgets.ledger_view.LedgerView`. Every
run's calls also go to the session's call history. Selecting another scenario clears the
tables: results on screen always belong to the scenario selected.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.engine.conductor import Conductor, RunResult
from workbench.errors import ConfigError, MissingDependency
from workbench.frames import calls_frame, changes_frame, violations_frame
from workbench.timeline import timeline
from workbench.timeline import warm as warm_timeline
from workbench.widgets.approval_panel import ApprovalPanel
from workbench.widgets.display import WARN_COLOR, ErrorArea, guarded, show, split_list
from workbench.widgets.ledger_view import LedgerView
from workbench.widgets.paged_table import PagedTable
from workbench.widgets.session import TRANSPORTS, Session
from workbench.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ScenarioRunner"]

#: Rows per page of the violations, calls and changes tables.
PAGE_SIZE = 25
#: Where openai agents' answers come from: the API, or a cassette replayed or recorded.
CASSETTE_CHOICES = ("live", "replay", "record")
#: Toggle buttons as wide as their words.
_TOGGLES = {"button_width": "auto"}


def _no_wrap() -> widgets.Layout:
    """A toggle row that keeps its buttons on one line and does not shrink."""
    return widgets.Layout(flex="0 0 auto", flex_flow="row nowrap")


class ScenarioRunner(widgets.VBox):
    """Run a scenario with the session's live manifests and show what happened.

    Args:
        session: The shared session.
        scenario: The scenario to select first (the first by name when None).

    Attributes:
        result: The last run's result (None before the first run).
        previous: The run before it, of the same scenario (None otherwise).
        frames: The last run's ``violations``, ``calls`` and ``changes`` frames.

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
        self.previous: RunResult | None = None
        self.frames: dict[str, pd.DataFrame] = {}
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self._last_percent = -1
        self._chosen_transport = TRANSPORTS[0]
        self._shipped_cassette = False
        #: Called with each finished run's result (the Workbench refreshes the grants).
        self.after_run: list[Callable[[RunResult], None]] = []

        self.scenario_select = widgets.Dropdown(options=names, value=scenario or names[0],
                                                description="Scenario")
        self.seed = widgets.IntText(description="Seed", layout=widgets.Layout(width="14em"))
        self.ticks = widgets.BoundedIntText(min=0, max=1_000_000, description="Ticks",
                                            layout=widgets.Layout(width="14em"))
        # Buttons as wide as their words, in a row that never shrinks: at the default
        # 148 px each, a tab's width wraps the choices onto two lines.
        self.transport = widgets.ToggleButtons(options=TRANSPORTS, value=TRANSPORTS[0],
                                               description="Transport", style=_TOGGLES,
                                               layout=_no_wrap())
        self.approve = widgets.Text(
            description="Approve", layout=widgets.Layout(width="40em"),
            placeholder="tools whose unconfirmed calls may run: get_current_time, echo (* = all)",
            tooltip="An untrusted server's tools are treated as destructive, so each call "
                    "needs approval; calls to tools not listed here are refused (not approved)",
        )
        # Which backend each agent of the cast uses, and where openai agents' answers
        # come from: the live API, or a cassette replayed (offline) or recorded.
        self.backends = widgets.HTML()
        self.cassette_mode = widgets.ToggleButtons(options=CASSETTE_CHOICES, value="live",
                                                   description="Model calls", style=_TOGGLES,
                                                   layout=_no_wrap())
        self.cassette_path = widgets.Text(description="Cassette",
                                          layout=widgets.Layout(width="40em"),
                                          placeholder="a cassette file (JSONL) to replay or "
                                                      "record")
        self.run_button = widgets.Button(description="Run", icon="play",
                                         button_style="primary")
        self.progress = widgets.IntProgress(min=0, max=1, value=0, description="Progress")
        self.progress_count = widgets.Label(value="")
        self.freeze_button = widgets.Button(
            description="Freeze as test", icon="check-square-o",
            tooltip="Run the scenario from its files as `workbench test` does, and write what "
                    "it did as its expect: block (save manifest edits first)")
        self.freeze_force = widgets.Checkbox(description="replace an existing block",
                                             indent=False, layout=widgets.Layout(width="16em"))
        self.freeze_output = widgets.HTML()
        #: The last freeze (None before the first).
        self.frozen: Any = None
        self.summary = widgets.HTML()
        self.approvals = ApprovalPanel(on_approve=self._approve_and_rerun)
        self.violations_title = widgets.HTML("<b>Violations</b>")
        self.violations_table = PagedTable("wb-violations", "No violations.", PAGE_SIZE,
                                           wrap=("params", "reason"))
        self.calls_title = widgets.HTML("<b>Tool calls</b>")
        self.show_payloads = widgets.Checkbox(
            description="params and results", indent=False,
            tooltip="Show each call's params and the result the tool returned")
        self.calls_table = PagedTable("wb-calls", "No tool calls.", PAGE_SIZE,
                                      wrap=("detail", "params", "result"))
        self.changes_title = widgets.HTML("<b>Changes since the previous run</b>")
        self.changes_table = PagedTable("wb-changes", "No violation or call changed.",
                                        PAGE_SIZE, wrap=("before", "after"))
        self.ledger_view = LedgerView()
        self.timeline_output = widgets.Output()
        self.transcript = TranscriptView()
        super().__init__(children=[
            widgets.HBox([self.scenario_select, self.seed, self.ticks]),
            self.transport,
            self.approve,
            self.backends,
            widgets.HBox([self.cassette_mode, self.cassette_path],
                         layout=widgets.Layout(flex_flow="row wrap")),
            widgets.HBox([self.run_button, self.progress, self.progress_count]),
            widgets.HBox([self.freeze_button, self.freeze_force]),
            self.freeze_output,
            self.summary,
            self.error_area,
            self.approvals,
            self.violations_title,
            self.violations_table,
            widgets.HBox([self.calls_title, self.show_payloads]),
            self.calls_table,
            self.changes_title,
            self.changes_table,
            widgets.HTML("<b>Timeline</b>"),
            self.timeline_output,
            widgets.HTML("<b>Ledger</b>"),
            self.ledger_view,
            widgets.HTML("<b>Model conversations</b>"),
            self.transcript,
        ], **kwargs)

        self.scenario_select.observe(self._on_scenario, names=["value"])
        self.run_button.on_click(self._on_run)
        self.freeze_button.on_click(self._on_freeze)
        self.show_payloads.observe(self._on_payloads, names=["value"])
        self._use_defaults(self.scenario_select.value)
        self.clear()
        warm_timeline()

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
        self.progress_count.value = f"tick 0/{ticks:,}"
        self._last_percent = -1
        self.summary.value = (f"starting the MCP servers of {html.escape(scenario.name)}…"
                              if scenario.servers else f"running {html.escape(scenario.name)}…")
        self.run_button.disabled = True  # a second click while running would interleave runs
        started = time.perf_counter()
        from workbench.surface.approval import ApprovalPolicy

        policy = ApprovalPolicy(allow=split_list(self.approve.value))
        session.approver = policy
        cassette = None
        try:
            cassette = self._cassette()
            models = self._models(manifests, cassette)
            registry = session.registry_for(self.transport.value, scenario)
            conductor = Conductor(scenario, manifests, registry, seed=self.seed.value,
                                  progress=self._on_progress, models=models)
            result = conductor.run(ticks)
        except BaseException:
            self.progress.bar_style = "danger"
            self.summary.value = ""
            raise
        finally:
            self.run_button.disabled = False
            if cassette is not None:
                cassette.close()
        elapsed = time.perf_counter() - started
        self.progress.value = self.progress.max
        self.progress_count.value = f"tick {result.ticks:,}/{ticks:,}"
        self.progress.bar_style = "success"
        self._show_result(result, elapsed)
        self.approvals.show(policy.refused, result.violations)
        for callback in self.after_run:
            callback(result)
        return result

    def freeze(self, force: bool | None = None) -> Any:
        """Freeze the selected scenario as a contract test and show the block and the diff.

        The scenario runs from its files, as ``workbench test`` runs it (so save manifest
        edits first); what it did becomes its ``expect:`` block (see
        :func:`workbench.testing.freeze.freeze`). A block that exists and would change is
        written only with ``force`` (the checkbox when None).

        Returns:
            The :class:`~workbench.testing.freeze.Frozen` record.
        """
        from workbench.testing.freeze import freeze

        force = self.freeze_force.value if force is None else force
        frozen = freeze(self.session.root, self.scenario_select.value, force=force)
        self.frozen = frozen
        block = "\n".join(_block_lines(frozen.block))
        if frozen.written:
            head = (f"Froze {html.escape(self.scenario_select.value)} "
                    f"({'with' if frozen.deterministic else 'without'} its final hash); "
                    f"<code>workbench test</code> now checks:")
        elif frozen.diff:
            head = ("The expect: block would change as below; nothing was written. Tick "
                    "<i>replace an existing block</i> to write it.")
        else:
            head = "The expect: block already says what this scenario does."
        diff = (f"<pre class='wb-freeze-diff'>{html.escape(frozen.diff)}</pre>"
                if frozen.diff else "")
        self.freeze_output.value = (f"<div class='wb-freeze'>{head}<pre>"
                                    f"{html.escape(block)}</pre>{diff}</div>")
        return frozen

    def clear(self) -> None:
        """Forget the shown results (done when another scenario is selected)."""
        self.result = self.previous = None
        self.frames = {}
        self.summary.value = ""
        self.progress.value = 0
        self.progress.bar_style = ""
        self.progress_count.value = ""
        self.approvals.show([])
        self.violations_title.value = "<b>Violations</b>"
        self.calls_title.value = "<b>Tool calls</b>"
        self.violations_table.clear()
        self.calls_table.clear()
        self.changes_table.clear()
        self.changes_title.layout.display = self.changes_table.layout.display = "none"
        self.freeze_output.value = ""
        self.ledger_view.show(None)
        self.timeline_output.outputs = ()

    # -- display ----------------------------------------------------------------------
    def _show_result(self, result: RunResult, elapsed: float) -> None:
        self.previous, self.result = self.result, result
        violations = violations_frame(result)
        calls = calls_frame(result, payloads=True)
        self.frames = {"violations": violations, "calls": calls}
        self.session.history.record_run(result)
        self.summary.value = (
            f"{html.escape(result.ledger.run_id)} over {html.escape(self.transport.value)}: "
            f"{result.ticks} ticks (ended by {html.escape(result.reason)}), {len(result.ledger):,} "
            f"events, {len(violations):,} violations, {len(calls):,} tool calls in "
            f"{elapsed:.2f} s &middot; final hash <code>{result.final_hash[:16]}</code>"
            + _approval_note(result.violations)
        )
        self.violations_title.value = f"<b>Violations ({len(violations):,})</b>"
        self.calls_title.value = f"<b>Tool calls ({len(calls):,})</b>"
        self.violations_table.show(violations)
        self._show_calls()
        if self.previous is not None:
            changes = changes_frame(self.previous, result)
            self.frames["changes"] = changes
            self.changes_title.value = (f"<b>Changes since the previous run "
                                        f"({len(changes):,})</b>: violations and calls that "
                                        f"differ from {html.escape(self.previous.ledger.run_id)}")
            self.changes_title.layout.display = self.changes_table.layout.display = None
            self.changes_table.show(changes)
        self.ledger_view.show(result)
        _show_timeline(self.timeline_output, result)
        self.transcript.show(result)

    def _cassette(self) -> Any:
        mode = self.cassette_mode.value
        if mode == "live":
            return None
        from workbench.agents.cassette import Cassette

        path = self.cassette_path.value.strip()
        if not path:
            raise ConfigError("Cassette", "path", f"give a cassette file to {mode}, or "
                              f"choose 'live'")
        return Cassette(path, mode)

    def _models(self, manifests: list[Any], cassette: Any) -> dict[str, Any] | None:
        if not any(m.model.backend == "openai" for m in manifests):
            return None
        from workbench.agents.openai_model import models_for_run

        return dict(models_for_run(manifests, cassette=cassette))

    def _show_backends(self, scenario: Any) -> None:
        parts = []
        for name in scenario.cast:
            manifest = self.session.manifests.get(name)
            if manifest is None:
                continue
            spec = manifest.model
            what = spec.backend
            if spec.backend == "openai":
                what += f" ({spec.model} at {spec.base_url or 'the OpenAI API'})"
            parts.append(f"{html.escape(name)}: <code>{html.escape(what)}</code>")
        self.backends.value = "Models: " + ", ".join(parts)
        shipped = self.session.root / "cassettes" / f"{scenario.name}.jsonl"
        if shipped.exists():  # a scenario with a recorded cassette runs offline by default
            self.cassette_path.value = str(shipped)
            self.cassette_mode.value = "replay"
            self._shipped_cassette = True
        elif self._shipped_cassette:  # that cassette belonged to the previous scenario
            self.cassette_path.value = ""
            self.cassette_mode.value = "live"
            self._shipped_cassette = False

    def _show_calls(self) -> None:
        calls = self.frames.get("calls")
        if calls is None:
            return
        if not self.show_payloads.value:
            calls = calls.drop(columns=["params", "result"])
        self.calls_table.show(calls)

    def _use_defaults(self, name: str) -> None:
        scenario = self.session.config.scenario(name)
        self._show_backends(scenario)
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
            self.progress_count.value = f"tick {tick:,}/{total:,}"

    @guarded
    def _on_scenario(self, change: dict[str, Any]) -> None:
        self._use_defaults(change["new"])
        self.clear()

    @guarded
    def _on_freeze(self, _button: widgets.Button) -> None:
        self.freeze()

    @guarded
    def _on_payloads(self, _change: dict[str, Any]) -> None:
        self._show_calls()

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


def _approval_note(denied: list[Any]) -> str:
    """How to approve the calls refused as ``not approved`` ("" when there were none)."""
    from workbench.surface.approval import unapproved_tools

    refused = unapproved_tools(denied)
    if not refused:
        return ""
    tools = ", ".join(f"<code>{html.escape(t)}</code>" for t in refused)
    n = sum(refused.values())
    return (f'<br><span class="wb-approval-hint" style="color:{WARN_COLOR}">{n:,} call'
            f"{'s' * (n != 1)} refused as not approved ({tools}): check what the tool does, "
            f"then tick it under <i>Awaiting approval</i> and press <b>Approve and run again</b>, "
            f"or add it to <i>Approve</i> (<code>--approve TOOL</code> on the command line)</span>")


def _block_lines(block: dict[str, Any]) -> list[str]:
    """The derived part of an expect: block as it reads in YAML, one record a line."""
    lines = []
    for key, value in block.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend("  - {" + ", ".join(f"{k}: {v}" for k, v in item.items()) + "}"
                         for item in value)
        else:
            lines.append(f"{key}: {value}")
    return lines


def _show_timeline(output: widgets.Output, result: RunResult) -> None:
    try:
        # Binned past 300 marks: the chart's data is sent to the browser with the widget.
        chart = timeline(result, max_points=300)
    except MissingDependency as exc:  # the run is fine; only the picture is missing
        show(output, f"<p><i>{html.escape(str(exc))}</i></p>")
        return
    show(output, chart)
