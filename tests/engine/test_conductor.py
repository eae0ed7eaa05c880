from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workbench.contracts.config import ConfigTree
from workbench.engine.conductor import Conductor
from workbench.engine.ledger import JsonlLedgerStore
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

HASH_SCRIPT = (
    "from workbench.engine.conductor import Conductor;"
    "from workbench.tools.builtins import register_builtins;"
    "from workbench.tools.registry import ToolRegistry;"
    "r=Conductor.from_config('config','{scenario}',registry=register_builtins(ToolRegistry()),"
    "seed={seed}).run(ticks={ticks});print(r.final_hash)"
)


def run(config, scenario="oracle-grove", ticks=5, seed=None, registry=None, **kw):
    registry = registry or register_builtins(ToolRegistry())
    return Conductor.from_config(config, scenario, registry=registry, seed=seed, **kw).run(ticks)


def without_grant(config_dir, agent="fortune-teller", tool="oracle"):
    path = config_dir / "agents" / f"{agent}.yaml"
    path.write_text(path.read_text().replace(f"tools: [{tool}]", "tools: []"))


class TestOracleGrove:
    def test_fortune_teller_speaks_omens_and_the_whisperer_observes(self, repo_root):
        result = run(repo_root / "config", ticks=5)
        spoke = result.ledger.of_kind("oracle.spoke")
        assert len(spoke) == 5
        assert all(e.actor == "fortune-teller" and e.payload["omen"] for e in spoke)
        observed = [e for e in result.ledger.of_kind("world.observed") if e.tick > 0]
        assert len(observed) == 5 and {e.actor for e in observed} == {"scene-whisperer"}
        # The omen is read for the scene that woke the teller.
        for e in spoke:
            trigger = result.ledger[e.caused_by]
            assert trigger.kind == "world.observed" and e.payload["seed"] == trigger.payload["text"]
        assert result.reason == "ticks" and result.ledger[-1].kind == "run.finished"

    def test_every_call_is_on_the_ledger_with_telemetry_apart(self, repo_root):
        result = run(repo_root / "config", ticks=3)
        calls = result.ledger.of_kind("tool.called")
        assert len(calls) == 3 and all("result" in e.payload for e in calls)
        assert set(result.telemetry) == {e.seq for e in calls}
        assert all(t["transport"] == "in-process" for t in result.telemetry.values())

    def test_removed_grant_gives_one_denial_per_attempt_and_the_run_completes(self, config_dir):
        without_grant(config_dir)
        result = run(config_dir, ticks=4)
        assert result.reason == "ticks"
        denied = result.violations
        assert len(denied) == 4
        assert all(e.payload["reason"] == "not granted" and e.payload["tool"] == "oracle"
                   for e in denied)
        failed = result.ledger.of_kind("agent.failed")
        assert [f.caused_by for f in failed] == [d.seq for d in denied]
        assert result.ledger.of_kind("tool.called") == []
        assert len([e for e in result.ledger.of_kind("world.observed") if e.tick]) == 4

    def test_same_seed_same_hash_other_seed_other_hash(self, repo_root):
        a = run(repo_root / "config", ticks=6, seed=11)
        b = run(repo_root / "config", ticks=6, seed=11)
        c = run(repo_root / "config", ticks=6, seed=12)
        assert a.final_hash == b.final_hash != c.final_hash
        assert a.ledger.to_jsonl() == b.ledger.to_jsonl()

    def test_same_hash_in_two_separate_processes(self, repo_root, offline_env):
        hashes = []
        for hashseed in ("1", "2"):
            env = {**offline_env, "PYTHONHASHSEED": hashseed}
            out = subprocess.run(
                [sys.executable, "-c", HASH_SCRIPT.format(scenario="oracle-grove", seed=7,
                                                          ticks=8)],
                cwd=repo_root, env=env, capture_output=True, text=True, check=True)
            hashes.append(out.stdout.strip())
        assert hashes[0] == hashes[1]
        assert hashes[0] == run(repo_root / "config", ticks=8, seed=7).final_hash


class TestTownSquare:
    def test_cascade_resolves_within_the_tick(self, repo_root):
        result = run(repo_root / "config", "town-square", ticks=3)
        news = result.ledger.of_kind("news.announced")
        for item in news[:-1]:
            rumour = next(e for e in result.ledger if e.kind == "rumour.spread"
                          and e.caused_by == item.seq)
            chron = next(e for e in result.ledger if e.kind == "chronicle.written"
                         and e.caused_by == rumour.seq)
            assert rumour.tick == chron.tick == item.tick + 1

    def test_scripted_herald_is_refused_the_ungranted_oracle(self, repo_root):
        result = run(repo_root / "config", "town-square", ticks=6)
        denied = result.violations
        assert [(e.tick, e.actor, e.payload["tool"], e.payload["params"], e.payload["reason"])
                for e in denied] == [
            (2, "herald", "oracle", {"seed": "the market"}, "not granted"),
            (5, "herald", "oracle", {"seed": "the market"}, "not granted"),
        ]
        # The generic agent reads the refusal and carries on: it still announces.
        assert [e.tick for e in result.ledger.of_kind("news.announced")] == [1, 2, 3, 4, 5, 6]


class TestGovernor:
    def scenario_with(self, config_dir, name, text):
        path = config_dir / "scenarios" / f"{name}.yaml"
        path.write_text(path.read_text() + text)

    def test_cascade_is_throttled_and_recorded(self, config_dir):
        path = config_dir / "scenarios" / "town-square.yaml"
        path.write_text(path.read_text().replace("max_calls_per_tick: 8",
                                                 "max_calls_per_tick: 1"))
        result = run(config_dir, "town-square", ticks=3)
        throttled = result.ledger.of_kind("governor.throttled")
        assert throttled and all(e.payload["limit"] == "max_calls_per_tick" for e in throttled)
        assert result.reason == "ticks"

    def test_tool_budget_ends_the_run(self, config_dir):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        path.write_text(path.read_text().replace("max_calls_per_tick: 16",
                                                 "max_calls_per_tick: 16\n  max_tool_calls: 2"))
        result = run(config_dir, ticks=10)
        assert result.reason == "budget"
        assert len(result.ledger.of_kind("tool.called")) == 2
        assert result.ledger[-1].payload["budget"] == "max_tool_calls"

    def test_activation_budget_ends_the_run(self, config_dir):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        path.write_text(path.read_text().replace("max_calls_per_tick: 16",
                                                 "max_calls_per_tick: 16\n  max_total_calls: 3"))
        result = run(config_dir, ticks=10)
        assert result.reason == "budget" and result.ledger[-1].payload["budget"] == \
            "max_total_calls"
        assert len([e for e in result.ledger if e.actor in ("fortune-teller", "scene-whisperer")
                    and e.kind in ("oracle.spoke", "world.observed")]) == 3


class TestFailuresAndControl:
    def test_an_agent_that_raises_is_recorded_and_the_cast_goes_on(self, repo_root):
        registry = ToolRegistry()

        def broken(seed: str) -> dict:
            raise RuntimeError("the oracle is asleep")

        registry.register("oracle", "Broken oracle.", broken)
        result = run(repo_root / "config", ticks=2, registry=registry)
        calls = result.ledger.of_kind("tool.called")
        assert [c.payload["error"] for c in calls] == [
            {"kind": "tool_error", "message": "the oracle is asleep"}] * 2
        failed = result.ledger.of_kind("agent.failed")
        assert [f.payload["error"] for f in failed] == ["ToolCallError"] * 2
        assert len([e for e in result.ledger.of_kind("world.observed") if e.tick]) == 2

    def test_emitting_an_undeclared_kind_fails_the_agent(self, config_dir):
        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace("may_emit: [oracle.spoke]",
                                                 "may_emit: [omen.read]"))
        result = run(config_dir, ticks=1)
        failed = result.ledger.of_kind("agent.failed")
        assert len(failed) == 1 and "may not emit 'oracle.spoke'" in failed[0].payload["message"]

    def test_progress_and_stop(self, repo_root):
        seen = []
        conductor = Conductor.from_config(repo_root / "config", "oracle-grove",
                                          registry=register_builtins(ToolRegistry()))

        def progress(tick, total):
            seen.append((tick, total))
            if tick == 3:
                conductor.stop()

        conductor.progress = progress
        result = conductor.run(ticks=10)
        assert seen == [(1, 10), (2, 10), (3, 10)]
        assert result.reason == "stop" and result.ticks == 3

    def test_ledger_file_matches_memory(self, repo_root, tmp_path):
        path = tmp_path / "l.jsonl"
        result = run(repo_root / "config", ticks=4, ledger_path=path)
        assert path.read_text(encoding="utf-8") == result.ledger.to_jsonl()

    def test_unknown_handler_is_a_config_error(self, config_dir):
        from workbench.errors import ConfigError

        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace("handler: fortune-teller", "handler: seer"))
        with pytest.raises(ConfigError, match="no handler named 'seer'; known handlers: "
                                              "fortune-teller"):
            run(config_dir, ticks=1)

    def test_config_tree_can_be_passed_loaded(self, repo_root):
        tree = ConfigTree.load(repo_root / "config")
        assert run(tree, ticks=2).final_hash == run(repo_root / "config", ticks=2).final_hash


class OddModel:
    """A model that asks for calls whose params JSON cannot carry as they are."""

    def respond(self, request):
        from workbench.agents.models import ModelReply, ToolCallRequest

        return ModelReply("done", (
            ToolCallRequest("odd", {"big": 2**70, "ratio": float("nan"), "nested": {1: "a"}}),
            ToolCallRequest("secret", {1: "int key", "b": [float("-inf")]}),
        ))


def odd_result(**params) -> dict:
    deep: object = "bottom"
    for _ in range(600):
        deep = {"down": deep}
    return {"big": 2**80 + 1, "inf": float("inf"), "mixed": {2: "x", "2": "y"}, "deep": deep}


class TestEveryCallIsRecorded:
    @pytest.fixture
    def odd_config(self, config_dir):
        (config_dir / "agents" / "calc.yaml").write_text(
            "name: calc\nrole: worker\nsubscribes_to: []\nmay_emit: [calc.said]\n"
            "schedule:\n  tick_every: 1\ntools: [odd]\n")
        (config_dir / "scenarios" / "odd-values.yaml").write_text(
            "name: odd-values\ntitle: Odd values\ngoal: Values JSON lacks.\ndefault_seed: 1\n"
            "example_seeds: [1]\ngenesis_text: \"Start {seed}.\"\ncast: [calc]\n"
            "governor:\n  max_ticks: 3\n")
        return config_dir

    def odd_run(self, config, path=None, **kw):
        registry = ToolRegistry()
        registry.register("odd", "Returns values JSON lacks.", odd_result)
        registry.register("secret", "Never granted.", odd_result)
        return Conductor.from_config(config, "odd-values", registry=registry,
                                     models={"calc": OddModel()}, ledger_path=path, **kw)

    def test_big_ints_nan_odd_keys_and_depth_lose_no_call(self, odd_config, tmp_path):
        path = tmp_path / "odd.jsonl"
        result = self.odd_run(odd_config, path).run(3)
        kinds = [e.kind for e in result.ledger]
        assert "agent.failed" not in kinds
        called, denied = result.ledger.of_kind("tool.called"), result.violations
        assert len(called) == 3 and len(denied) == 3  # one refused call a tick, each kept
        assert called[0].payload["params"] == {"big": "1180591620717411303424",
                                              "nested": {"1": "a"}, "ratio": "NaN"}
        out = called[0].payload["result"]
        assert out["big"] == str(2**80 + 1) and out["inf"] == "Infinity"
        assert out["mixed"] == [["2", "y"], [2, "x"]]
        assert denied[0].payload["params"] == {"1": "int key", "b": ["-Infinity"]}
        assert denied[0].payload["reason"] == "not granted"
        # The file holds the same events, verifies, and resumes to the same bytes.
        found = JsonlLedgerStore.read(path)
        assert [e.to_dict() for e in found.events] == [e.to_dict() for e in result.ledger]
        whole = path.read_bytes()
        cut = tmp_path / "cut.jsonl"
        cut.write_bytes(whole[: len(whole) * 2 // 3])
        registry = ToolRegistry()
        registry.register("odd", "Returns values JSON lacks.", odd_result)
        Conductor.resume(odd_config, cut, registry=registry, models={"calc": OddModel()}).run()
        assert cut.read_bytes() == whole

    def test_a_refused_call_with_int_keys_is_a_violation(self, odd_config):
        # Same refusal through the generic agent's path: the ledger holds every denial.
        result = self.odd_run(odd_config).run(1)
        assert [e.payload["tool"] for e in result.violations] == ["secret"]


class TestFailuresRecordNoOperatorHint:
    def test_agent_failed_has_the_message_not_the_log_path(self, repo_root, tmp_path):
        from workbench.errors import ToolCallError

        def failing(seed: str) -> dict:
            raise ToolCallError("transport_error", "the server closed the connection",
                                "oracle", operator_hint=f"server log: /tmp/x-{tmp_path.name}.log")

        registry = ToolRegistry()
        registry.register("oracle", "Fails.", failing)
        result = run(repo_root / "config", ticks=2, registry=registry)
        failed = result.ledger.of_kind("agent.failed")
        assert failed and all(e.payload == {
            "error": "ToolCallError",
            "message": "oracle: transport_error: the server closed the connection"}
            for e in failed)

    @pytest.mark.timeout(600)  # a server start per call, twice over
    @pytest.mark.slow
    def test_two_runs_with_a_dying_server_give_identical_ledgers(self, repo_root, tmp_path,
                                                                 workbench_cli, offline_env):
        server = repo_root / "tests" / "tools" / "servers" / "counting_server.py"
        env = {**offline_env, "MCP_SERVERS": f"{sys.executable} {server} --count "
                                              f"{tmp_path / 'count'}"}
        ledgers = []
        for name in ("a", "b"):
            out = subprocess.run([*workbench_cli, "run", "oracle-grove", "--ticks", "2",
                                  "--approve", "oracle", "--format", "jsonl"],
                                 cwd=repo_root, env=env, capture_output=True, text=True,
                                 timeout=300)
            assert out.returncode == 0, out.stderr
            ledgers.append(out.stdout)
            (tmp_path / f"{name}.jsonl").write_text(out.stdout)
        assert ledgers[0] == ledgers[1]
        failed = [json.loads(line) for line in ledgers[0].splitlines()
                  if '"kind":"agent.failed"' in line]
        assert len(failed) == 2
        assert all("transport_error" in f["payload"]["message"] for f in failed)
        assert not any(".log" in line or "log:" in line for line in ledgers[0].splitlines())
