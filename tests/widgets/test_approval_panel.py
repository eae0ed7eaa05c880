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
