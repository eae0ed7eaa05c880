"""A run cut short resumes from its ledger file to the ledger of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from workbench.engine.conductor import Conductor
from workbench.engine.ledger import JsonlLedgerStore
from workbench.errors import LedgerError
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


def registry() -> ToolRegistry:
    return register_builtins(ToolRegistry())


def full_run(config, scenario, ticks, path):
    Conductor.from_config(config, scenario, registry=registry(), ledger_path=path).run(ticks)
    return path.read_bytes()


class TestResume:
    @pytest.mark.parametrize("scenario", ["oracle-grove", "town-square"])
    @pytest.mark.parametrize("fraction", [None, 0.13, 0.5, 0.77, 0.999])
    def test_cut_anywhere_resumes_to_the_same_bytes(self, repo_root, tmp_path, scenario,
                                                    fraction):
        whole = full_run(repo_root / "config", scenario, 40, tmp_path / "whole.jsonl")
        cut = tmp_path / "cut.jsonl"
        # What a kill leaves: a prefix of the bytes (None: only the first event).
        end = whole.index(b"\n") + 1 if fraction is None else int(len(whole) * fraction)
        cut.write_bytes(whole[:end])
        result = Conductor.resume(repo_root / "config", cut, registry=registry()).run()
        assert cut.read_bytes() == whole
        assert result.final_hash == JsonlLedgerStore.verify(cut).final_hash

    def test_resume_calls_no_tool_for_the_recorded_part(self, repo_root, tmp_path):
        whole = full_run(repo_root / "config", "oracle-grove", 30, tmp_path / "w.jsonl")
        cut = tmp_path / "cut.jsonl"
        cut.write_bytes(whole[: len(whole) // 2])
        recorded = JsonlLedgerStore.read(cut).events
        # Every recorded call is kept, the last (partial) tick's too: none is made again.
        kept_calls = sum(1 for e in recorded if e.kind == "tool.called")
        calls = []
        reg = ToolRegistry()
        for spec in registry().describe(["oracle"]):
            def counted(seed: str, _run=spec.run) -> dict:
                calls.append(seed)
                return _run(seed=seed)

            reg.register(spec.name, spec.description, counted, input_schema=spec.input_schema)
        result = Conductor.resume(repo_root / "config", cut, registry=reg).run()
        assert cut.read_bytes() == whole
        # Only the calls after the cut were made.
        assert kept_calls > 0
        assert len(calls) == len(result.ledger.of_kind("tool.called")) - kept_calls

    def test_a_denied_and_failing_agent_resumes_too(self, config_dir, tmp_path):
        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace("tools: [oracle]", "tools: []"))
        whole = full_run(config_dir, "oracle-grove", 20, tmp_path / "w.jsonl")
        cut = tmp_path / "cut.jsonl"
        cut.write_bytes(whole[: len(whole) * 2 // 3])
        Conductor.resume(config_dir, cut, registry=registry()).run()
        assert cut.read_bytes() == whole

    def test_a_changed_config_is_refused_not_silently_mixed(self, config_dir, tmp_path):
        whole = full_run(config_dir, "oracle-grove", 20, tmp_path / "w.jsonl")
        cut = tmp_path / "cut.jsonl"
        cut.write_bytes(whole[: len(whole) // 2])
        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace("tools: [oracle]", "tools: []"))
        conductor = Conductor.resume(config_dir, cut, registry=registry())
        with pytest.raises(LedgerError, match="cannot resume: at seq 2 the ledger has "
                                              "tool.called by fortune-teller, but the current "
                                              "config gives a call of 'oracle' by fortune-"
                                              "teller that its manifest no longer grants"):
            conductor.run()

    def test_a_finished_run_is_not_resumed(self, repo_root, tmp_path):
        path = tmp_path / "w.jsonl"
        full_run(repo_root / "config", "oracle-grove", 3, path)
        with pytest.raises(LedgerError, match="already finished"):
            Conductor.resume(repo_root / "config", path, registry=registry())

    def test_sigkill_then_resume_with_the_cli(self, repo_root, tmp_path, workbench_cli,
                                              offline_env):
        ticks = "4000"
        whole = tmp_path / "whole.jsonl"
        subprocess.run([*workbench_cli, "run", "oracle-grove", "--ticks", ticks, "--ledger",
                        str(whole), "--format", "jsonl"], cwd=repo_root, env=offline_env,
                       check=True, stdout=subprocess.DEVNULL)
        killed = tmp_path / "killed.jsonl"
        proc = subprocess.Popen([*workbench_cli, "run", "oracle-grove", "--ticks", ticks,
                                 "--ledger", str(killed), "--format", "jsonl"], cwd=repo_root,
                                env=offline_env, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not (killed.exists() and killed.stat().st_size > 100_000):
            assert time.monotonic() < deadline and proc.poll() is None, "run ended too soon"
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert killed.stat().st_size < whole.stat().st_size
        out = subprocess.run([*workbench_cli, "resume", str(killed), "--format", "jsonl"],
                             cwd=repo_root, env=offline_env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert killed.read_bytes() == whole.read_bytes()
        assert "resumed" in out.stderr


def crafted(path, payload: object) -> None:
    """A hash-valid ledger whose run.started payload is ``payload``."""
    from workbench.engine.ledger import Ledger

    with JsonlLedgerStore(path) as store:
        ledger = Ledger("oracle-grove:7", store)
        ledger.append(0, "run.started", "conductor", payload)
        ledger.append(0, "world.observed", "world", {"text": "Dawn."})


GOOD = {"scenario": "oracle-grove", "seed": 7, "ticks": 3,
        "cast": ["fortune-teller", "scene-whisperer"]}


class TestCraftedLedgers:
    @pytest.mark.parametrize(("change", "field"), [
        ({"scenario": None}, "scenario"),
        ({"scenario": 5}, "scenario"),
        ({"scenario": ""}, "scenario"),
        ({"seed": "7"}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"ticks": -1}, "ticks"),
        ({"ticks": "many"}, "ticks"),
        ({"cast": "fortune-teller"}, "cast"),
        ({"config": "/etc"}, "'config'"),
        ({"scenario": "no-such-scenario"}, "no-such-scenario"),
    ])
    def test_an_odd_run_started_is_one_line_naming_the_field(self, repo_root, tmp_path,
                                                             change, field):
        payload = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
        path = tmp_path / "crafted.jsonl"
        crafted(path, payload)
        before = path.read_bytes()
        proc = subprocess.run([sys.executable, "-m", "workbench.cli", "resume", str(path),
                               "--config", str(repo_root / "config")],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
        assert field in proc.stderr and "Traceback" not in proc.stderr
        assert path.read_bytes() == before  # nothing lost

    def test_a_payload_that_is_not_an_object(self, repo_root, tmp_path):
        path = tmp_path / "crafted.jsonl"
        crafted(path, ["oracle-grove"])
        with pytest.raises(LedgerError, match="run.started payload is list"):
            Conductor.resume(repo_root / "config", path, registry=registry())

    def test_a_malformed_recorded_outcome_is_refused_not_a_traceback(self, repo_root,
                                                                     tmp_path):
        from workbench.engine.ledger import Ledger

        path = tmp_path / "crafted.jsonl"
        with JsonlLedgerStore(path) as store:
            ledger = Ledger("oracle-grove:7", store)
            ledger.append(0, "run.started", "conductor", GOOD)
            text = "Dawn in the oracle grove (seed 7). Mist hangs over the standing stones."
            ledger.append(0, "world.observed", "world", {"text": text})
            ledger.append(1, "tool.called", "fortune-teller",
                          {"tool": "oracle", "params": {"seed": text}, "error": "boom"})
        with pytest.raises(LedgerError, match="recorded outcome is malformed"):
            Conductor.resume(repo_root / "config", path, registry=registry()).run()

    def test_an_empty_ledger_is_refused_with_what_to_do(self, repo_root, tmp_path):
        path = tmp_path / "empty.jsonl"
        path.write_bytes(b"")
        with pytest.raises(LedgerError, match="holds no event: the run was killed before"):
            Conductor.resume(repo_root / "config", path, registry=registry())
