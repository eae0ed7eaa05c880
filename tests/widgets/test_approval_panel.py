"""Approving refused calls from the runner: real untrusted servers, a real re-run."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.external, pytest.mark.timeout(120)]


@pytest.fixture
def runner(workbench, config_dir: Path, repo_root: Path):
    # Server commands run from the project directory (the config copy's parent).
    (config_dir.parent / "external").symlink_to(repo_root / "external")
    workbench.runner.scenario_select.value = "watch-house"
    return workbench.runner


def test_refused_calls_are_listed_and_approving_one_reruns_with_it(runner):
    panel = runner.approvals
    assert panel.layout.display == "none"  # nothing refused yet
    runner.run_button.click()
    assert runner.last_error is None, runner.last_error
    assert sorted(panel.boxes) == ["echo", "get_current_time"]
    assert panel.layout.display is None and panel.approve_button.disabled
    import ipywidgets

    text = " ".join(c.value for row in panel.children for c in getattr(row, "children", ())
                    if isinstance(c, ipywidgets.HTML))
    assert "timekeeper" in text and "time" in text and "not believed" in text

    panel.boxes["get_current_time"].value = True
    assert not panel.approve_button.disabled
    panel.approve_button.click()
    assert runner.last_error is None and panel.last_error is None
    assert runner.approve.value == "get_current_time"
    calls = runner.frames["calls"]
    assert calls.loc[calls["tool"] == "get_current_time", "outcome"].tolist() == ["ok"]
    assert calls.loc[calls["tool"] == "echo", "outcome"].tolist() == ["denied"]
    assert sorted(panel.boxes) == ["echo"]  # still waiting: never approved by default


def test_nothing_to_approve_in_process(workbench):
    workbench.runner.run_button.click()
    assert workbench.runner.approvals.boxes == {}
    assert workbench.runner.approvals.layout.display == "none"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """mcp-server-time's tools, imported once (a real subprocess), pinned to server 'a'."""
    from tests.surface.surface_data import imported_time_surface

    return imported_time_surface(tmp_path_factory.mktemp("imported") / "time")


class TestPinDrift:
    """Issue 23 item 14: a surface pinned to server 'a', a scenario naming it 'b'."""

    def test_drift_refusals_are_listed_with_why_and_what_to_do(self, tmp_path, imported):
        from tests.surface.surface_data import TIME_TOOL, renamed_config
        from workbench.widgets import Workbench

        wb = Workbench.from_config(renamed_config(tmp_path / "config", imported),
                                   scenario="trial")
        try:
            runner = wb.runner
            runner.approve.value = "*"  # approving every call changes nothing: the pin rules
            runner.run_button.click()
            assert runner.last_error is None, runner.last_error
        finally:
            wb.close()
        panel = runner.approvals
        assert panel.layout.display is None and panel.boxes == {}
        assert panel.drift == [TIME_TOOL]
        import ipywidgets

        text = " ".join(c.value for c in panel.children if isinstance(c, ipywidgets.HTML))
        assert "Pin drift (1)" in text
        assert (f"<b>{TIME_TOOL}</b>: 1 call(s) by runner refused as <i>pin drift</i>: "
                f"pinned to server &#x27;a&#x27;, offered by &#x27;b&#x27;: re-pin with "
                f"`workbench surface approve config/surfaces/trial {TIME_TOOL} --server "
                f"&lt;command of &#x27;b&#x27;&gt; --name b`, or name the server "
                f"&#x27;a&#x27; in the scenario") in text
        assert panel.approve_button not in panel.children  # nothing here to approve

    def test_a_detail_is_escaped(self):
        from workbench.contracts.events import Event
        from workbench.widgets.approval_panel import ApprovalPanel

        forged = Event(run_id="r", seq=1, tick=1, kind="tool.denied", actor="x<i>",
                       payload={"tool": "t<b>", "params": {}, "reason": "pin drift",
                                "detail": "<script>alert(1)</script>"}, caused_by=None,
                       hash="0")
        panel = ApprovalPanel(on_approve=lambda tools: None)
        panel.show([], [forged])
        html = panel.children[1].value
        assert "<script>" not in html and "&lt;script&gt;" in html
        assert "t&lt;b&gt;" in html and "x&lt;i&gt;" in html
