"""The runner shows each run's timeline; the Workbench has a tab to call a tool by hand."""

from __future__ import annotations

from workbench.timeline import VEGALITE_MIME


def test_a_run_shows_its_timeline(workbench):
    runner = workbench.runner
    runner.scenario_select.value = "town-square"
    runner.run_button.click()
    assert runner.last_error is None, runner.last_error
    (output,) = runner.timeline_output.outputs
    spec = output["data"][VEGALITE_MIME]
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) == len(runner.result.ledger)
    assert "2 denied" in output["data"]["text/plain"]
    runner.scenario_select.value = "oracle-grove"
    runner.run_button.click()
    (output,) = runner.timeline_output.outputs
    assert "0 denied" in output["data"]["text/plain"]


def test_the_workbench_has_a_tool_caller_tab(workbench):
    from workbench.widgets import ToolCaller

    assert isinstance(workbench.tool_caller, ToolCaller)
    assert "Call a tool" in workbench.titles
    # It acts as the runner's scenario's first cast member, like the manifest editor.
    assert workbench.tool_caller.agent_select.value == "fortune-teller"
    # An untick in the Manifests tab is what the next hand call uses.
    workbench.manifest_editor.set_grant("oracle", False)
    outcome = workbench.tool_caller.call({"seed": "x"}, tool="oracle")
    assert outcome.reason == "not granted"
