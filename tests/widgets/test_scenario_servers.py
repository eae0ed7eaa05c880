"""A scenario with its own MCP servers and a curated surface, run from the widgets.

Real external servers (mcp-server-time from PyPI, server-everything from npm): the
server is not trusted, so its calls need approval (the runner's Approve field); the
surface hides ``get-env``, so the timekeeper's call is refused; hiding ``echo`` too in
the SurfaceEditor makes the next run refuse that call as well (get-env is never exposed:
it would put the server's environment on the ledger).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.widgets.conftest import output_html

pytestmark = [pytest.mark.external, pytest.mark.timeout(120)]


@pytest.fixture
def servers_env(config_dir: Path, repo_root: Path) -> None:
    everything = repo_root / "external/node_modules/@modelcontextprotocol/server-everything"
    if not everything.is_dir():
        pytest.fail("server-everything is not installed: run `make node`")
    # Server commands run from the project directory (the config copy's parent) and
    # name external/node_modules/... relative to it.
    (config_dir.parent / "external").symlink_to(repo_root / "external")


def test_surface_edit_is_what_the_next_run_uses(workbench, servers_env):
    runner, surfaces = workbench.runner, workbench.surface_editor
    runner.scenario_select.value = "watch-house"
    assert runner.transport.value == "MCP" and runner.transport.disabled

    # An untrusted server's calls need approval: without it they are refused.
    runner.run_button.click()
    assert runner.last_error is None, runner.last_error
    denied = runner.frames["violations"]
    assert dict(zip(denied["tool"], denied["reason"], strict=True)) == {
        "get_current_time": "not approved", "echo": "not approved",
        "get-env": "hidden by curation"}

    runner.approve.value = "get_current_time, echo"
    runner.run_button.click()
    assert runner.last_error is None, runner.last_error
    denied = runner.frames["violations"]
    assert list(denied["tool"]) == ["get-env"]
    assert list(denied["reason"]) == ["hidden by curation"]
    assert "hidden by curation" in output_html(runner.violations_table.table)
    calls = runner.frames["calls"]
    assert set(calls.loc[calls["outcome"] == "ok", "transport"]) == {
        "stdio:time", "stdio:everything"}

    surfaces.surface_select.value = "watch-house"
    surfaces.select_tool("echo")
    surfaces.exposed.value = False
    surfaces.apply_button.click()
    assert surfaces.last_error is None and surfaces.problems == {}

    runner.run_button.click()
    assert runner.last_error is None, runner.last_error
    denied = runner.frames["violations"]
    assert list(denied["tool"]) == ["echo", "get-env"]
    assert set(denied["reason"]) == {"hidden by curation"}
    calls = runner.frames["calls"]
    assert calls.loc[calls["outcome"] == "ok", "tool"].tolist() == ["get_current_time"]


def test_grants_follow_the_scenario_and_survive_a_run(workbench, servers_env):
    editor = workbench.manifest_editor
    editor.select("timekeeper")
    assert editor.grant_boxes["echo"].description == "echo (not offered)"
    workbench.runner.scenario_select.value = "watch-house"
    assert editor.grant_boxes["echo"].description == "echo"
    workbench.runner.approve.value = "*"
    workbench.runner.run_button.click()
    assert workbench.runner.last_error is None, workbench.runner.last_error
    assert editor.grant_boxes["echo"].description == "echo"
    assert editor.grant_boxes["echo"].value
    assert editor.grant_boxes["get-sum"].description == "get-sum (hidden by curation)"
    assert editor.grant_boxes["get-sum"].disabled and not editor.grant_boxes["get-sum"].value
