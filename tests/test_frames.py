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


class TestOneDisplayStyle:
    """frame_html: how every frame the workbench returns is shown (issue 30 item 2)."""

    def test_hashes_are_shortened_on_screen_and_exact_in_the_frame(self, repo_root):
        from workbench.frames import HASH_SHOWN, frame_html

        frame = ledger_frame(run(repo_root / "config", ticks=1))
        full = frame["hash"].iloc[0]
        shown = frame_html(frame)
        assert len(full) == 64 and full not in shown.replace(f'title="{full}"', "")
        assert f">{full[:HASH_SHOWN]}…<" in shown
        assert f'title="{full}"' in shown  # the whole hash on hover
        assert frame["hash"].str.len().eq(64).all()  # the data is untouched

    def test_a_meaningful_index_is_a_column_and_a_default_one_is_not(self):
        import pandas as pd

        from workbench.frames import frame_html

        latency = pd.DataFrame({"median_ms": [0.003, 7.4]}, index=["in-process", "stdio"])
        shown = frame_html(latency)
        assert ">in-process<" in shown and ">stdio<" in shown
        plain = frame_html(pd.DataFrame({"a": ["x", "y"]}))
        assert ">0<" not in plain and ">1<" not in plain

    def test_a_crosstab_keeps_its_row_labels_and_axis_names(self):
        import pandas as pd

        from workbench.frames import frame_html

        table = pd.crosstab(pd.Series(["a", "b"], name="expected"),
                            pd.Series(["a", "a"], name="picked"))
        shown = frame_html(table)
        assert "expected" in shown and "picked" in shown
        assert shown.count(">a<") >= 2 and ">b<" in shown  # a row label and a column label

    def test_a_huge_cell_is_collapsed_with_its_size_not_cut_with_dots(self):
        import pandas as pd

        from workbench.frames import CELL_MAX, frame_html

        big = "x" * 200_000
        frame = pd.DataFrame({"tool": ["echo"], "result": [big]})
        shown = frame_html(frame)
        assert "<details" in shown and "200,000 characters" in shown
        assert len(shown) < CELL_MAX + 2_000  # not 200,000 characters sent to the page
        assert "more characters not shown" in shown
        assert "..." not in shown
        assert frame["result"].iloc[0] == big

    def test_a_long_cell_wraps_in_any_column(self):
        import pandas as pd

        from workbench.frames import frame_html

        text = "a description long enough that a table of it must wrap on a screen, " * 2
        shown = frame_html(pd.DataFrame({"note": [text], "id": ["fortune-teller"]}))
        note_cell = shown.split("<td", 2)[1]
        assert "white-space:nowrap" not in note_cell
        id_cell = shown.split("<td", 3)[2]
        assert "white-space:nowrap" in id_cell  # a name does not break at its hyphen

    def test_row_numbers_left_by_a_filter_are_not_a_column(self):
        import pandas as pd

        from workbench.frames import frame_html

        frame = pd.DataFrame({"tool": ["a", "b", "c"], "hit": [True, False, False]})
        shown = frame_html(frame[~frame["hit"]])
        assert shown.count("<th style") == 2 and ">1<" not in shown and ">2<" not in shown
