"""Selection gates: selection.yaml floors and must_not pairs (surface/gate.py, eval --gate)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from workbench.errors import ConfigError
from workbench.selection import load_tasks
from workbench.surface.gate import check_gate, load_gate

TASKS = [{"query": "add 2 and 3", "tool": "add_numbers"},
         {"query": "sum of the takings", "tool": "format_report", "must_not": ["add_numbers"]},
         {"query": "write the day's report", "tool": "format_report"}]


@pytest.fixture
def surface(tmp_path, repo_root):
    dest = tmp_path / "counting-house"
    shutil.copytree(repo_root / "config" / "surfaces" / "counting-house", dest)
    (dest / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    return dest


def eval_gate(workbench_cli, offline_env, surface, *extra):
    return subprocess.run([*workbench_cli, "eval", str(surface), "--gate", *extra],
                          capture_output=True, text=True, env=offline_env, timeout=60)


class TestGate:
    def test_a_gate_met_holds(self, surface):
        (surface / "selection.yaml").write_text("min_top1: 0.6\nmin_top3: 1.0\n")
        (surface / "tasks.jsonl").write_text(json.dumps(TASKS[0]) + "\n")
        verdict = check_gate(surface)
        assert verdict.ok and verdict.top1 == 1.0 and verdict.lines() == []

    def test_each_floor_missed_and_each_must_not_broken_is_a_line(self, surface):
        (surface / "selection.yaml").write_text("min_top1: 0.9\n")
        verdict = check_gate(surface)
        assert not verdict.ok
        assert verdict.lines() == [
            "selection::counting-house: min_top1: bm25 reached 0.667, under 0.900; missed: "
            "'sum of the takings'",
            "selection::counting-house: must_not: add_numbers ranks first for 'sum of the "
            "takings' (expected format_report)"]

    def test_the_shipped_watch_house_gate_holds(self, repo_root):
        assert check_gate(repo_root / "config" / "surfaces" / "watch-house").ok

    @pytest.mark.parametrize("text, words", [
        ("min_top1: 1.5\n", "min_top1"), ("selector: model\n", "selector"),
        ("min_top: 0.5\n", "unknown key; allowed keys: selector, min_top1, min_top3")])
    def test_a_bad_gate_is_one_error_with_its_line(self, surface, text, words):
        (surface / "selection.yaml").write_text(text)
        with pytest.raises(ConfigError) as caught:
            load_gate(surface)
        assert words in str(caught.value) and "selection.yaml:1" in str(caught.value)

    def test_must_not_is_read_and_checked(self, surface):
        assert load_tasks(surface)[1].must_not == ("add_numbers",)
        (surface / "tasks.jsonl").write_text(json.dumps(
            {"query": "q", "tool": "add_numbers", "must_not": ["add_numbers"]}) + "\n")
        with pytest.raises(ConfigError, match="names 'add_numbers', the tool the query"):
            load_tasks(surface)
        (surface / "tasks.jsonl").write_text(json.dumps(
            {"query": "q", "tool": None, "must_not": "add_numbers"}) + "\n")
        with pytest.raises(ConfigError, match="must_not: must be a list of tool names"):
            load_tasks(surface)


class TestEvalGateCommand:
    @pytest.mark.slow
    def test_exit_codes_0_1_2(self, surface, workbench_cli, offline_env):
        (surface / "selection.yaml").write_text("min_top1: 0.5\n")
        ok = eval_gate(workbench_cli, offline_env, surface)
        assert "add_numbers ranks first" in ok.stdout  # must_not still broken: fails
        assert ok.returncode == 1
        (surface / "tasks.jsonl").write_text(json.dumps(TASKS[0]) + "\n")
        assert eval_gate(workbench_cli, offline_env, surface).returncode == 0
        (surface / "selection.yaml").write_text("min_top1: nope\n")
        bad = eval_gate(workbench_cli, offline_env, surface)
        assert bad.returncode == 2 and bad.stderr.startswith("error: ") and \
            bad.stderr.count("\n") == 1

    def test_gate_does_not_take_another_task_file(self, surface, workbench_cli, offline_env):
        (surface / "selection.yaml").write_text("min_top1: 0.5\n")
        out = eval_gate(workbench_cli, offline_env, surface, "--tasks", str(surface))
        assert out.returncode == 2 and "--tasks: does not go with --gate" in out.stderr
