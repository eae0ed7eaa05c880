"""The calls log beside a ledger: telemetry on disk, never in the hashed content."""

from __future__ import annotations

from workbench.engine.calls_log import calls_log_path, read_calls_log
from workbench.engine.conductor import Conductor
from workbench.frames import calls_frame
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry


def run(config, path, ticks=5, **kw):
    return Conductor.from_config(config, "town-square", registry=register_builtins(
        ToolRegistry()), ledger_path=path, **kw).run(ticks)


class TestCallsLog:
    def test_one_record_per_call_beside_the_ledger(self, repo_root, tmp_path):
        path = tmp_path / "run.jsonl"
        result = run(repo_root / "config", path)
        log = calls_log_path(path)
        assert log == tmp_path / "run.calls.jsonl"
        records = read_calls_log(log)
        calls = result.ledger.of_kind("tool.called", "tool.denied")
        assert sorted(records) == [e.seq for e in calls] and records
        for seq, record in records.items():
            assert record["tool"] == result.ledger[seq].payload["tool"]
            assert record["latency_ms"] >= 0 and record["at"].endswith("Z")
        frame = calls_frame(result.ledger, records)
        assert frame["latency_ms"].notna().all()

    def test_telemetry_differs_between_runs_the_ledger_does_not(self, repo_root, tmp_path):
        a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        run(repo_root / "config", a)
        run(repo_root / "config", b)
        assert a.read_bytes() == b.read_bytes()
        assert read_calls_log(calls_log_path(a)).keys() == read_calls_log(
            calls_log_path(b)).keys()
        assert "latency_ms" not in a.read_text()  # telemetry never enters the ledger

    def test_resume_keeps_the_records_of_the_kept_part(self, repo_root, tmp_path):
        whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
        run(repo_root / "config", whole, ticks=12)
        run(repo_root / "config", cut, ticks=12)
        data = cut.read_bytes()
        cut.write_bytes(data[: len(data) // 2])
        result = Conductor.resume(repo_root / "config", cut,
                                  registry=register_builtins(ToolRegistry())).run()
        records = read_calls_log(calls_log_path(cut))
        calls = [e.seq for e in result.ledger.of_kind("tool.called", "tool.denied")]
        assert sorted(records) == calls
        assert cut.read_bytes() == whole.read_bytes()
