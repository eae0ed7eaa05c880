from __future__ import annotations

import pytest

from tests.widgets.conftest import output_html
from workbench.errors import ConfigError, ToolCallError


class TestGrantEditThenRun:
    """The issue's headless scenario: an edit in the editor is what the next Run uses."""

    def test_removing_a_grant_shows_violations_and_restoring_it_clears_them(self, workbench):
        editor, runner = workbench.manifest_editor, workbench.runner
        editor.select("fortune-teller")

        editor.grant_boxes["oracle"].value = False
        runner.run_button.click()
        assert runner.last_error is None
        denied = runner.frames["violations"]
        assert len(denied) > 0
        assert set(denied["agent"]) == {"fortune-teller"}
        assert set(denied["tool"]) == {"oracle"}
        assert set(denied["reason"]) == {"not granted"}
        assert list(denied["seq"]) == [e.seq for e in runner.result.ledger.of_kind("tool.denied")]
        shown = output_html(runner.violations_table.table)
        assert 'class="dataframe wb-violations"' in shown and "not granted" in shown
        assert shown.count("<tr>") == len(denied)  # one body row per violation

        editor.grant_boxes["oracle"].value = True
        runner.run_button.click()
        assert runner.last_error is None
        assert runner.frames["violations"].empty
        assert runner.result.ledger.of_kind("tool.denied") == []
        assert "No violations." in output_html(runner.violations_table.table)
        assert "not granted" not in output_html(runner.violations_table.table)
        assert len(runner.result.ledger.of_kind("oracle.spoke")) > 0

    def test_regranted_run_equals_the_original(self, workbench):
        runner, editor = workbench.runner, workbench.manifest_editor
        first = runner.run().final_hash
        editor.set_grant("oracle", False)
        assert runner.run().final_hash != first
        editor.set_grant("oracle", True)
        assert runner.run().final_hash == first


class TestRunner:
    def test_scenario_choice_sets_its_defaults(self, workbench):
        runner = workbench.runner
        runner.scenario_select.value = "town-square"
        assert (runner.seed.value, runner.ticks.value) == (3, 6)

    def test_progress_bar_reaches_the_end(self, workbench):
        runner = workbench.runner
        runner.ticks.value = 4
        seen = []
        runner.progress.observe(lambda c: seen.append(c["new"]), names=["value"])
        runner.run()
        assert seen[-1] == 4 and seen == sorted(seen)
        assert runner.progress.bar_style == "success"

    def test_calls_table_and_ledger_are_shown(self, workbench):
        runner = workbench.runner
        result = runner.run()
        calls = runner.frames["calls"]
        assert set(calls["outcome"]) == {"ok"}
        assert set(calls["transport"]) == {"in-process"}
        assert "wb-calls" in output_html(runner.calls_table.table)
        assert runner.ledger_view.matches == len(result.ledger)
        assert f"{len(result.ledger):,} events" in runner.summary.value

    def test_a_run_that_cannot_start_is_shown_in_the_widget(self, workbench):
        runner = workbench.runner
        del runner.session.manifests["scene-whisperer"]
        runner.run_button.click()
        assert isinstance(runner.last_error, ConfigError)
        shown = output_html(runner.error_area)
        assert "scene-whisperer" in shown and "no such manifest" in shown
        assert not runner.run_button.disabled

    def test_an_unreachable_mcp_server_is_shown_in_the_widget(self, workbench):
        runner = workbench.runner
        runner.session._mcp_env = {"MCP_SERVERS": "/nonexistent/mcp-server"}
        runner.transport.value = "MCP"
        runner.run_button.click()
        assert isinstance(runner.last_error, ToolCallError)
        assert runner.last_error.kind == "transport_error"
        assert "/nonexistent/mcp-server" in output_html(runner.error_area)
        assert not runner.run_button.disabled

    def test_the_next_good_run_clears_the_error(self, workbench):
        runner = workbench.runner
        del runner.session.manifests["scene-whisperer"]
        runner.run_button.click()
        assert runner.error_area.outputs
        runner.session.manifests["scene-whisperer"] = runner.session.saved["scene-whisperer"]
        runner.run_button.click()
        assert runner.last_error is None and runner.error_area.outputs == ()

    def test_repr_is_short(self, workbench):
        assert repr(workbench.runner) == (
            "ScenarioRunner(scenario='oracle-grove', last_run=None)")


class TestTransports:
    @pytest.mark.slow
    def test_mcp_run_gives_the_same_ledger_as_in_process(self, workbench):
        runner = workbench.runner
        runner.ticks.value = 3
        workbench.manifest_editor.set_grant("oracle", False)
        hashes = {}
        for transport in ("in-process", "MCP"):
            runner.transport.value = transport
            runner.run_button.click()
            assert runner.last_error is None, runner.last_error
            assert len(runner.frames["violations"]) == 3
            hashes[transport] = runner.result.final_hash
        assert hashes["MCP"] == hashes["in-process"]

    @pytest.mark.slow

    def test_mcp_tools_are_offered_as_grants_once_mcp_is_used(self, workbench):
        workbench.runner.session.registry_for("MCP")
        workbench.manifest_editor.refresh_tools()
        assert "oracle" in workbench.manifest_editor.grant_boxes


class TestScenarioServers:
    def test_a_scenario_with_servers_pins_the_transport_and_gives_it_back(self, workbench):
        runner = workbench.runner
        runner.transport.value = "in-process"
        runner.scenario_select.value = "watch-house"
        assert runner.transport.value == "MCP" and runner.transport.disabled
        assert "time" in runner.transport.tooltip
        runner.scenario_select.value = "oracle-grove"
        assert runner.transport.value == "in-process" and not runner.transport.disabled


class TestPagination:
    def test_a_long_run_shows_one_page_of_violations_and_calls(self, workbench):
        from tests.widgets.conftest import cells, state_size
        from workbench.widgets.runner import PAGE_SIZE

        workbench.manifest_editor.select("fortune-teller")
        workbench.manifest_editor.grant_boxes["oracle"].value = False
        runner = workbench.runner
        runner.ticks.value = 3000
        runner.run_button.click()
        assert runner.last_error is None, runner.last_error
        table = runner.violations_table
        assert table.rows == 3000 and table.page_count == 3000 // PAGE_SIZE
        shown = output_html(table.table)
        assert shown.count("<tr>") == PAGE_SIZE
        assert "page 1 of 120" in table.page_label.value and table.prev_button.disabled
        table.next_button.click()
        assert table.page == 1 and cells(output_html(table.table))[0] == str(
            runner.frames["violations"]["seq"].iloc[PAGE_SIZE])
        table.last_button.click()
        assert table.page == 119 and table.next_button.disabled
        assert output_html(runner.calls_table.table).count("<tr>") == PAGE_SIZE
        # What the browser holds stays small after 3,000 ticks.
        assert state_size(runner) < 150_000  # all 3,000 rows would be over a megabyte

    def test_selecting_another_scenario_clears_the_results(self, workbench):
        runner = workbench.runner
        runner.run_button.click()
        assert runner.result is not None and runner.calls_table.rows > 0
        runner.scenario_select.value = "town-square"
        assert runner.result is None and runner.frames == {}
        assert runner.calls_table.table.outputs == () and runner.violations_table.rows == 0
        assert runner.ledger_view.matches == 0 and runner.summary.value == ""


class TestEveryResponse:
    def test_calls_show_params_and_results_on_request(self, workbench):
        runner = workbench.runner
        runner.run_button.click()
        assert "params" not in output_html(runner.calls_table.table)
        runner.show_payloads.value = True
        shown = output_html(runner.calls_table.table)
        omen = runner.result.ledger.of_kind("tool.called")[0].payload["result"]["omen"]
        assert "<th" in shown and ">params<" in shown and ">result<" in shown
        assert omen in shown and "Dawn in the oracle grove" in shown

    def test_runs_go_to_the_session_history_which_exports(self, workbench, tmp_path):
        import pandas as pd

        from workbench.widgets.history import HistoryView

        runner = workbench.runner
        runner.run_button.click()
        runner.run_button.click()
        history = workbench.session.history
        assert len(history) == 20  # two runs of 10 oracle calls
        frame = history.frame()
        assert set(frame["source"]) == {runner.result.ledger.run_id}
        assert set(frame["outcome"]) == {"ok"}
        view = HistoryView(history, page_size=5)
        assert view.table.page_count == 4 and "Call history (20)" in view.title.value
        for suffix in ("jsonl", "csv", "parquet"):
            path = view.export(tmp_path / f"calls.{suffix}")
            back = (pd.read_json(path, lines=True) if suffix == "jsonl" else
                    pd.read_csv(path) if suffix == "csv" else pd.read_parquet(path))
            assert len(back) == 20 and list(back.columns) == list(frame.columns)
        assert "omen" in str(back["result"].iloc[0])

    def test_changes_since_the_previous_run(self, workbench):
        editor, runner = workbench.manifest_editor, workbench.runner
        editor.select("fortune-teller")
        runner.run_button.click()
        assert runner.changes_table.layout.display == "none"  # nothing to compare yet
        editor.grant_boxes["oracle"].value = False
        runner.run_button.click()
        changes = runner.frames["changes"]
        assert runner.changes_table.layout.display is None
        assert set(zip(changes["table"], changes["change"], strict=True)) == {
            ("violations", "added"), ("calls", "removed")}
        assert len(changes) == 20
        assert "Changes since the previous run (20)" in runner.changes_title.value
        runner.run_button.click()
        assert runner.frames["changes"].empty  # same run twice: nothing changed
        assert "No violation or call changed." in output_html(runner.changes_table.table)


class TestFreezeAsTest:
    """Issue 24: the runner freezes the scenario it shows as its expect: block."""

    def _runner(self, config_dir):
        from workbench.widgets import ScenarioRunner, Session

        path = config_dir / "scenarios" / "town-square.yaml"
        path.write_text(path.read_text().split("# What a run must show")[0])
        return ScenarioRunner(Session.from_config(config_dir), "town-square"), path

    def test_freeze_writes_the_block_and_shows_it(self, config_dir):
        from workbench.testing import check_scenario

        runner, path = self._runner(config_dir)
        runner.freeze_button.click()
        assert runner.last_error is None, runner.last_error
        assert runner.frozen.written and "expect:" in path.read_text()
        shown = runner.freeze_output.value
        assert "Froze town-square (with its final hash)" in shown
        assert "{agent: herald, tool: oracle, reason: not granted}" in shown
        assert check_scenario(config_dir, "town-square").ok

    def test_a_changed_block_shows_the_diff_and_is_written_only_when_asked(self, config_dir):
        runner, path = self._runner(config_dir)
        runner.freeze()
        herald = config_dir / "agents" / "herald.yaml"
        herald.write_text(herald.read_text().replace("tools: []", "tools: [oracle]"))
        before = path.read_bytes()
        runner.freeze_button.click()
        assert path.read_bytes() == before
        assert "nothing was written" in runner.freeze_output.value
        assert "wb-freeze-diff" in runner.freeze_output.value
        runner.freeze_force.value = True
        runner.freeze_button.click()
        assert runner.frozen.written and path.read_bytes() != before


class TestProgressCount:
    """Every long widget says n/N as it goes (issue 30 item 6)."""

    def test_the_bar_has_a_tick_count_that_moves(self, workbench):
        runner = workbench.runner
        runner.ticks.value = 4
        counts = []
        runner.progress_count.observe(lambda c: counts.append(c["new"]), names=["value"])
        runner.run()
        assert counts[0] == "tick 0/4" and counts[-1] == "tick 4/4"
        assert "tick 2/4" in counts


class TestApprovalHint:
    """A run refused for want of approval says how to approve (issue 30 item 11)."""

    @pytest.mark.subprocess
    def test_the_summary_says_how_to_approve_the_refused_calls(self, asking_config):
        from workbench.widgets import ScenarioRunner, Session

        session = Session.from_config(asking_config)
        try:
            runner = ScenarioRunner(session, "asking")
            runner.run()
            summary = runner.summary.value
            assert "2 calls refused as not approved" in summary
            assert "Approve and run again" in summary and "daily_quote" in summary
            runner.approve.value = "daily_quote"
            runner.run()
            assert "not approved" not in runner.summary.value
        finally:
            session.close()
