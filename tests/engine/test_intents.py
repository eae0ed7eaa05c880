"""Resume never repeats a side effect: kill -9 at exact points, then count what really ran.

A real MCP server (tests/tools/servers/counting_server.py) appends every execution of its
``record`` tool to a file and holds the K-th call, before or after its side effect, until
the test has killed the workbench there. After ``workbench resume`` the executions must
match the ledger's records: nothing recorded is sent again, and the call in flight at the
kill is recorded as ``interrupted`` (re-sent only with ``--retry-interrupted``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.engine.ledger import JsonlLedgerStore
from workbench.errors import LedgerError

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

SERVER = Path(__file__).resolve().parents[1] / "tools" / "servers" / "counting_server.py"
STEPS = 5


def office(config: Path, count: Path, held: Path, hold_at: tuple[int, ...] = (),
           hold: str = "after") -> str:
    """A scenario where a scripted clerk calls ``record(n=tick)`` once a tick."""
    script = "\n".join(f"  - call: record\n    params: {{n: {i}}}\n    say: \"Recorded {i}.\""
                       for i in range(1, STEPS + 1))
    (config / "agents" / "clerk.yaml").write_text(
        "name: clerk\nrole: worker\npersona: A clerk who files one record a tick.\n"
        "subscribes_to: []\nmay_emit: [clerk.filed]\nschedule:\n  tick_every: 1\n"
        "model:\n  backend: scripted\nmemory:\n  window: 2\ntools: [record]\n"
        f"script:\n{script}\n")
    command = f"{sys.executable} {SERVER} --count {count} --held {held}"
    command += "".join(f" --hold-at {k}" for k in hold_at) + f" --hold {hold}"
    (config / "scenarios" / "ledger-office.yaml").write_text(
        "name: ledger-office\ntitle: The Ledger Office\ngoal: One side effect a tick.\n"
        "default_seed: 1\nexample_seeds: [1]\ngenesis_text: \"The office opens (seed {seed}).\"\n"
        f"cast: [clerk]\ngovernor:\n  max_ticks: {STEPS}\n  max_calls_per_tick: 4\n"
        f"servers:\n  - name: counter\n    command: \"{command}\"\n")
    return "ledger-office"


def executed(count: Path) -> list[int]:
    return [int(line) for line in count.read_text().split()] if count.exists() else []


def calls(path: Path) -> tuple[list[int], list[int], list[dict]]:
    """(labels with an outcome, labels interrupted, every tool.called payload)."""
    events = JsonlLedgerStore.read(path).events
    called = [e.payload for e in events if e.kind == "tool.called"]
    done = [p["params"]["n"] for p in called if "result" in p]
    cut = [p["params"]["n"] for p in called if p.get("error", {}).get("kind") == "interrupted"]
    return done, cut, called


def wait_for(path: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 90
    while not (path.exists() and path.read_text().strip()):
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before the hold: {proc.stderr.read()}")
        assert time.monotonic() < deadline, "the server never held the call"
        time.sleep(0.02)


def kill_at_hold(cli, env, config, ledger, held, *command) -> None:
    """Run (or resume) until the server holds a call, then kill -9 the workbench there."""
    command = command or ("run", "ledger-office", "--ledger", str(ledger))
    proc = subprocess.Popen([*cli, *command, "--config", str(config), "--approve", "record",
                             "--format", "jsonl"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_for(held, proc)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        server = held.read_text().strip() if held.exists() else ""
        if server:  # the held server would sleep on: end it too
            try:
                os.kill(int(server), signal.SIGKILL)
            except ProcessLookupError:
                pass


def resume(cli, env, config, ledger, *extra) -> subprocess.CompletedProcess:
    return subprocess.run([*cli, "resume", str(ledger), "--config", str(config),
                           "--approve", "record", "--format", "jsonl", *extra],
                          env=env, capture_output=True, text=True, timeout=180)


@pytest.mark.timeout(600)  # several CLI and server starts each, on a loaded machine
class TestKillAndResume:
    # (call held, held before or after its side effect): tick 1 (the genesis must be on
    # disk), the middle of the run, the last tick.
    @pytest.mark.parametrize(("hold_at", "hold"), [(1, "after"), (1, "before"), (3, "after"),
                                                  (5, "before")])
    def test_executions_equal_the_ledger_records(self, config_dir, tmp_path, workbench_cli,
                                                 offline_env, hold_at, hold):
        count, held, ledger = tmp_path / "count", tmp_path / "held", tmp_path / "run.jsonl"
        office(config_dir, count, held, (hold_at,), hold)
        kill_at_hold(workbench_cli, offline_env, config_dir, ledger,
                     held.with_suffix(f".{hold_at}"))

        on_disk = JsonlLedgerStore.read(ledger)  # what the kill left verifies
        kinds = [e.kind for e in on_disk.events]
        assert kinds[:2] == ["run.started", "world.observed"]  # on disk before any call
        # Every outcome before the held call is on disk: flushed right after its call.
        assert [p["params"]["n"] for p in calls(ledger)[2]] == list(range(1, hold_at))
        assert executed(count) == list(range(1, hold_at + (hold == "after")))

        out = resume(workbench_cli, offline_env, config_dir, ledger)
        assert out.returncode == 0, out.stderr
        assert "a call of 'record' by clerk was in flight at the kill" in out.stderr
        done, cut, _ = calls(ledger)
        assert cut == [hold_at]  # in flight at the kill: outcome unknown, not re-sent
        assert done == [n for n in range(1, STEPS + 1) if n != hold_at]
        ran = executed(count)
        assert len(ran) == len(set(ran))  # nothing ran twice
        if hold == "after":  # it did run: every execution is a record
            assert sorted(ran) == sorted(done + cut)
        else:  # it never ran: every execution is a completed record
            assert sorted(ran) == sorted(done)
        assert JsonlLedgerStore.read(ledger).events[-1].kind == "run.finished"

    def test_retry_interrupted_sends_it_again_and_records_both(self, config_dir, tmp_path,
                                                               workbench_cli, offline_env):
        count, held, ledger = tmp_path / "count", tmp_path / "held", tmp_path / "run.jsonl"
        office(config_dir, count, held, (2,), "after")
        kill_at_hold(workbench_cli, offline_env, config_dir, ledger, held.with_suffix(".2"))
        out = resume(workbench_cli, offline_env, config_dir, ledger, "--retry-interrupted")
        assert out.returncode == 0, out.stderr
        done, cut, called = calls(ledger)
        assert cut == [2] and done == [1, 2, 3, 4, 5]
        retry = next(p for p in called if "retry_of" in p)
        assert retry["params"] == {"n": 2} and "result" in retry
        # Asked for: call 2 ran twice, and the ledger says so (interrupted, then retried).
        assert sorted(executed(count)) == sorted(done + cut)

    def test_a_kill_during_the_resume_resumes_again(self, config_dir, tmp_path,
                                                    workbench_cli, offline_env):
        count, held, ledger = tmp_path / "count", tmp_path / "held", tmp_path / "run.jsonl"
        office(config_dir, count, held, (2, 4), "after")
        kill_at_hold(workbench_cli, offline_env, config_dir, ledger, held.with_suffix(".2"))
        kill_at_hold(workbench_cli, offline_env, config_dir, ledger, held.with_suffix(".4"),
                     "resume", str(ledger))
        out = resume(workbench_cli, offline_env, config_dir, ledger)
        assert out.returncode == 0, out.stderr
        done, cut, _ = calls(ledger)
        assert cut == [2, 4] and done == [1, 3, 5]
        assert sorted(executed(count)) == sorted(done + cut)

    def test_a_ledger_cut_after_a_call_was_sent_is_refused(self, config_dir, tmp_path,
                                                           workbench_cli, offline_env):
        count, held, ledger = tmp_path / "count", tmp_path / "held", tmp_path / "run.jsonl"
        office(config_dir, count, held)
        run = subprocess.run([*workbench_cli, "run", "ledger-office", "--config",
                              str(config_dir), "--ledger", str(ledger), "--approve", "record",
                              "--format", "jsonl", "--ticks", "3"], env=offline_env,
                             capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr
        lines = ledger.read_bytes().splitlines(keepends=True)
        # Cut back past the third call's intent (seq 6): its outcome and an event before it
        # are gone, so the file no longer holds what it held when the call was sent.
        ledger.write_bytes(b"".join(lines[:5]))
        out = resume(workbench_cli, offline_env, config_dir, ledger)
        assert out.returncode == 2
        assert out.stderr.count("\n") == 1 and "events were lost" in out.stderr
        assert executed(count) == [1, 2, 3]  # nothing was sent again


class TestIntentLog:
    def test_an_intent_beyond_the_ledger_is_refused(self, tmp_path):
        from workbench.engine.intents import IntentLog, intents_path

        path = tmp_path / "run.jsonl"
        intents_path(path).write_text(json.dumps(
            {"agent": "a", "params": "0", "seq": 9, "tick": 1, "tool": "t"}) + "\n")
        with pytest.raises(LedgerError, match="has only 4 events: events were lost"):
            IntentLog.pending(intents_path(path), 4)

    def test_a_torn_intent_was_never_sent(self, tmp_path):
        from workbench.engine.intents import IntentLog, intents_path

        path = intents_path(tmp_path / "run.jsonl")
        path.write_text(json.dumps({"agent": "a", "params": "0", "seq": 3, "tick": 1,
                                    "tool": "t"}) + "\n" + '{"agent": "b", "par')
        assert IntentLog.pending(path, 3).agent == "a"
        assert IntentLog.pending(path, 4) is None
