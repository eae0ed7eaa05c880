from __future__ import annotations

from workbench.engine.conductor import Conductor
from workbench.frames import (
    CALLS_COLUMNS,
    LEDGER_COLUMNS,
    VIOLATIONS_COLUMNS,
    calls_frame,
    ledger_frame,
    violations_frame,
)
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry


def run(config, scenario="oracle-grove", ticks=4):
    return Conductor.from_config(config, scenario,
                                 registry=register_builtins(ToolRegistry())).run(ticks)


class TestFrames:
    def test_ledger_frame_has_fixed_columns_in_ledger_order(self, repo_root):
        result = run(repo_root / "config")
        frame = ledger_frame(result)
        assert list(frame.columns) == LEDGER_COLUMNS
        assert frame["seq"].tolist() == list(range(len(result.ledger)))
        assert frame["hash"].iloc[-1] == result.final_hash
        assert frame["caused_by"].isna().iloc[0]

    def test_violations_frame_one_row_per_denial(self, config_dir):
        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace("tools: [oracle]", "tools: []"))
        result = run(config_dir, ticks=3)
        frame = violations_frame(result.ledger)
        assert list(frame.columns) == VIOLATIONS_COLUMNS
        assert frame[["tick", "agent", "tool", "reason"]].values.tolist() == [
            [1, "fortune-teller", "oracle", "not granted"],
            [2, "fortune-teller", "oracle", "not granted"],
            [3, "fortune-teller", "oracle", "not granted"],
        ]
        assert frame["params"].iloc[0] == {"seed": result.ledger[1].payload["text"]}

    def test_violations_frame_is_empty_but_shaped_without_denials(self, repo_root):
        frame = violations_frame(run(repo_root / "config"))
        assert frame.empty and list(frame.columns) == VIOLATIONS_COLUMNS

    def test_calls_frame_joins_telemetry(self, repo_root):
        result = run(repo_root / "config", "town-square", ticks=2)
        frame = calls_frame(result)
        assert list(frame.columns) == CALLS_COLUMNS
        assert frame["outcome"].tolist() == ["denied"]
        assert frame["detail"].tolist() == ["not granted"]
        ok = calls_frame(run(repo_root / "config", ticks=2))
        assert ok["outcome"].tolist() == ["ok", "ok"]
        assert ok["transport"].tolist() == ["in-process", "in-process"]
        assert (ok["latency_ms"] > 0).all()
