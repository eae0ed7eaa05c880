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


class TestCallsAndChanges:
    def test_calls_carry_what_the_tool_returned(self, repo_root):
        from workbench.tools.builtins import oracle

        result = run(repo_root / "config", ticks=2)
        frame = calls_frame(result, payloads=True)
        assert list(frame.columns) == [*CALLS_COLUMNS, "params", "result"]
        first = frame.iloc[0]
        omen = oracle(first["params"]["seed"])["omen"]
        assert first["result"]["omen"] == omen and omen in first["detail"]

    def test_changes_between_two_runs(self, config_dir):
        from workbench.frames import CHANGES_COLUMNS, changes_frame

        granted = run(config_dir, ticks=3)
        seer = config_dir / "agents" / "fortune-teller.yaml"
        seer.write_text(seer.read_text().replace("tools: [oracle]", "tools: []"))
        refused = run(config_dir, ticks=3)
        frame = changes_frame(granted, refused)
        assert list(frame.columns) == CHANGES_COLUMNS
        assert frame[["table", "change", "tick"]].values.tolist() == [
            ["violations", "added", 1], ["violations", "added", 2], ["violations", "added", 3],
            ["calls", "removed", 1], ["calls", "removed", 2], ["calls", "removed", 3]]
        assert frame.iloc[0]["after"] == "not granted" and frame.iloc[0]["before"] == ""
        assert frame.iloc[3]["before"].startswith("omen: ")
        assert changes_frame(granted, granted).empty


class TestDisplay:
    def test_frame_html_left_aligns_text_and_blanks_missing_values(self, repo_root):
        from workbench.frames import frame_html

        frame = ledger_frame(run(repo_root / "config", ticks=1))[["seq", "kind", "caused_by"]]
        shown = frame_html(frame)
        assert '<td style="text-align:left' in shown and '<td style="text-align:right' in shown
        assert "&lt;NA&gt;" not in shown and "<NA>" not in shown


class TestSelectionFrames:
    def test_selection_and_confusion(self):
        from workbench.frames import SELECTION_COLUMNS, confusion_frame, selection_frame
        from workbench.selection import Task, score

        result = score([Task("q1", "a"), Task("q2", "b"), Task("q3", None)],
                       [[("a", 2.0), ("b", 1.0)], [("a", 1.0), ("b", 0.5)], []],
                       selector="hand")
        frame = selection_frame(result)
        assert list(frame.columns) == SELECTION_COLUMNS
        assert frame["picked"].tolist() == ["a", "a", ""]
        assert frame["hit"].tolist() == [True, False, True]
        assert frame["rank"].tolist()[:2] == [1, 2] and frame["rank"].isna().tolist()[2]
        assert frame["margin"].tolist()[0] == 0.5
        confusion = confusion_frame(result)
        assert list(confusion.index) == list(confusion.columns) == ["a", "b", "(none)"]
        assert confusion.loc["b", "a"] == 1 and confusion.loc["(none)", "(none)"] == 1
        assert confusion.to_numpy().sum() == 3
