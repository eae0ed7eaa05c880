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
