"""A surface pinned under one server name, run by a scenario that names it another (issue
23 item 14): the refusal says which drift it is, in the ledger, the CLI and ``surface diff``.

The surface is imported from a real mcp-server-time subprocess under the name ``a``; the
scenario starts the very same server as ``b``. Nothing about the tools changed, so the
refusal must say so, and say the two ways out: re-pin to ``b``, or call the server ``a``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys

import pytest
from surface_data import REPO, TIME_CMD, TIME_TOOL, imported_time_surface, renamed_config

from workbench.contracts.surface import load_pins, save_pins
from workbench.engine.conductor import Conductor
from workbench.surface.approval import ApprovalPolicy

pytestmark = [pytest.mark.subprocess, pytest.mark.timeout(120)]

#: The refusal of a call pinned to 'a' and offered, unchanged, by 'b'.
MOVED = (f"pinned to server 'a', offered by 'b': re-pin with `workbench surface approve "
         f"config/surfaces/trial {TIME_TOOL} --server <command of 'b'> --name b`, or name "
         f"the server 'a' in the scenario")
SURFACE = "surfaces/trial"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """mcp-server-time's tools, imported once, pinned to server 'a'."""
    return imported_time_surface(tmp_path_factory.mktemp("imported") / "time")


def run(root, server_name="b"):
    return Conductor.from_config(root, "trial", approver=ApprovalPolicy(["*"])).run()


def cli(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", *args], capture_output=True,
                          text=True, timeout=90, cwd=cwd, env={**_env(), "PYTHONPATH": str(REPO)})
    return done.returncode, done.stdout, done.stderr


def _env():
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}


class TestAnotherServerName:
    def test_the_ledger_keeps_the_category_and_says_which_drift_it_is(self, tmp_path,
                                                                      imported):
        result = run(renamed_config(tmp_path / "config", imported))
        [denied] = result.violations
        assert denied.payload["reason"] == "pin drift"  # the category, machine-readable
        assert denied.payload["detail"] == MOVED

    def test_workbench_run_prints_the_explanation(self, tmp_path, imported):
        root = renamed_config(tmp_path / "config", imported)
        code, out, err = cli("run", "trial", "--config", str(root), "--approve", "*",
                             cwd=tmp_path)
        assert code == 0, err
        violations = out[out.index("violations: 1"):]
        assert f"pin drift: {MOVED}" in violations

    def test_surface_diff_with_the_scenarios_name_shows_the_server_move(self, tmp_path,
                                                                       imported):
        root = renamed_config(tmp_path / "config", imported)
        surface = str(root / SURFACE)
        code, out, err = cli("surface", "diff", surface, "--server", shlex.join(TIME_CMD),
                             "--name", "b", cwd=tmp_path)
        assert code == 1, err
        assert f"{TIME_TOOL}  drift   server" in out
        # The command in the note names the surface as it was given on the command line.
        assert MOVED.replace("config/surfaces/trial", surface) in out
        code, out, err = cli("surface", "diff", surface, "--server", shlex.join(TIME_CMD),
                             "--name", "b", "--format", "json", cwd=tmp_path)
        rows = {r["tool"]: r for r in json.loads(out)}
        assert rows[TIME_TOOL]["status"] == "drift" and rows[TIME_TOOL]["fields"] == ["server"]
        assert rows[TIME_TOOL]["servers"] == {"pinned": "a", "offered": "b"}
        # Under the name it was pinned with, nothing differs.
        code, out, err = cli("surface", "diff", surface, "--server", shlex.join(TIME_CMD),
                             "--name", "a", cwd=tmp_path)
        assert code == 0, out + err

    def test_either_way_out_makes_the_call_go_through(self, tmp_path, imported):
        # Name the server 'a' in the scenario ...
        result = run(renamed_config(tmp_path / "named-a" / "config", imported, server="a"))
        assert result.violations == []
        assert result.ledger.of_kind("tool.called")[0].payload["result"]["timezone"] == "UTC"
        # ... or re-pin to 'b' as the refusal says.
        root = renamed_config(tmp_path / "config", imported)
        surface = str(root / SURFACE)
        code, out, err = cli("surface", "approve", surface, TIME_TOOL, "--server",
                             shlex.join(TIME_CMD), "--name", "b", cwd=tmp_path)
        assert code == 0, out + err
        assert "pinned to server 'b' (was 'a')" in out
        assert {p["name"]: p["server"] for p in load_pins(surface)}[TIME_TOOL] == "b"
        assert run(root).violations == []


class TestTheOtherDrifts:
    def test_changed_metadata_names_the_fields(self, tmp_path, imported):
        root = renamed_config(tmp_path / "config", imported, server="a")
        pins = load_pins(root / SURFACE)
        for p in pins:
            if p["name"] == TIME_TOOL:  # as if the server said something else when pinned
                p["wire"]["description"] = "Get the time."
                p["fingerprint"] = "0" * 64
        save_pins(root / SURFACE, pins)
        [denied] = run(root).violations
        assert denied.payload["reason"] == "pin drift"
        assert denied.payload["detail"] == (
            f"server 'a' changed description since it was pinned: review it with `workbench "
            f"surface diff config/surfaces/trial --server <command of 'a'> --name a` and "
            f"re-pin it with `workbench surface approve config/surfaces/trial {TIME_TOOL} "
            f"--server <command of 'a'> --name a`")

    def test_a_tool_no_server_offers_any_more(self, tmp_path, imported):
        gone = tmp_path / "gone"
        shutil.copytree(imported, gone)
        pins = load_pins(gone)
        old = dict(next(p for p in pins if p["name"] == TIME_TOOL))
        old["name"] = old["wire"]["name"] = "get_old_time"
        save_pins(gone, [*pins, old])
        tools = json.loads((gone / "tools.json").read_text())
        entry = next(t for t in tools["tools"] if t["name"] == TIME_TOOL)
        tools["tools"].append(dict(entry, name="get_old_time"))
        (gone / "tools.json").write_text(json.dumps(tools))
        root = renamed_config(tmp_path / "config", gone, server="a", call="get_old_time")
        result = run(root)
        [denied] = result.violations
        assert denied.payload["reason"] == "pin drift"
        assert denied.payload["detail"] == (
            "pinned to server 'a', but no server offers it now: name the server 'a' in the "
            "scenario if it is missing, or hide get_old_time from agents with a 'remove' "
            "edit")
        assert result.ledger.of_kind("agent.failed") == []


class TestNoDrift:
    def test_a_call_that_goes_through_and_other_refusals_record_no_detail(self, tmp_path,
                                                                          imported):
        root = renamed_config(tmp_path / "config", imported, server="a")
        agent = json.loads((root / "agents/runner.yaml").read_text())
        agent["script"].insert(0, {"call": "convert_time", "params": {}, "say": "no grant"})
        (root / "agents/runner.yaml").write_text(json.dumps(agent, indent=1))
        scenario = json.loads((root / "scenarios/trial.yaml").read_text())
        scenario["governor"]["max_ticks"] = 2
        (root / "scenarios/trial.yaml").write_text(json.dumps(scenario, indent=1))
        result = run(root)
        assert result.ledger.of_kind("tool.called")[0].payload["result"]["timezone"] == "UTC"
        [denied] = result.violations
        assert denied.payload == {"tool": "convert_time", "params": {},
                                  "reason": "not granted"}


class TestResume:
    def test_a_run_cut_after_a_drift_refusal_resumes_to_the_same_bytes(self, tmp_path,
                                                                       imported):
        root = renamed_config(tmp_path / "config", imported)
        agent = json.loads((root / "agents/runner.yaml").read_text())
        agent["script"].append(dict(agent["script"][0], say="again"))
        (root / "agents/runner.yaml").write_text(json.dumps(agent, indent=1))
        scenario = json.loads((root / "scenarios/trial.yaml").read_text())
        scenario["governor"]["max_ticks"] = 2
        (root / "scenarios/trial.yaml").write_text(json.dumps(scenario, indent=1))
        path = tmp_path / "run.jsonl"
        result = Conductor.from_config(root, "trial", ledger_path=path,
                                       approver=ApprovalPolicy(["*"])).run()
        assert [e.payload["detail"] for e in result.violations] == [MOVED, MOVED]
        whole = path.read_bytes()
        lines = whole.splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if b'"tool.denied"' in line)
        path.write_bytes(b"".join(lines[: first + 1]))  # killed right after the refusal,
        intents = path.with_suffix(".intents.jsonl")  # before the next call was sent
        kept = [line for line in intents.read_text().splitlines(keepends=True)
                if json.loads(line)["seq"] <= first]
        intents.write_text("".join(kept))
        # Re-deriving the refusal from the ledger must give the very same event (detail
        # included), or the resume would refuse as diverged.
        Conductor.resume(root, path, approver=ApprovalPolicy(["*"])).run()
        assert path.read_bytes() == whole
