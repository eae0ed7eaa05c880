from __future__ import annotations

import pytest

from tests.widgets.conftest import cells, output_html, state_size
from workbench.contracts.events import Event
from workbench.engine.ledger import Ledger
from workbench.widgets import LedgerView
from workbench.widgets.ledger_view import ALL

BIG = 200_000
ACTORS = ("fortune-teller", "scene-whisperer", "herald", "gossip")
KINDS = ("world.observed", "tool.called", "oracle.spoke", "tool.denied")


@pytest.fixture(scope="module")
def big_ledger() -> Ledger:
    """200,000 events, 20 per tick. Built directly: hashing them would only slow the test."""
    payload = {"tool": "oracle", "params": {"seed": "dawn"}, "result": {"omen": "A heron."}}
    events = [
        Event("big:0", i, i // 20, KINDS[i % 4], ACTORS[i % 3], payload, None,
              f"{i:012d}".ljust(64, "f"))
        for i in range(BIG)
    ]
    return Ledger("big:0", events=events)


@pytest.fixture(scope="module")
def big_view(big_ledger) -> LedgerView:
    return LedgerView(big_ledger, page_size=50)


class TestLargeLedger:
    def test_first_page_is_shown(self, big_view):
        shown = output_html(big_view.table)
        assert shown.count("<tr>") == 50
        seqs = cells(shown)[::7]  # seq is the first of 7 columns (payload is hidden)
        assert seqs == [str(i) for i in range(50)]
        assert "events 1–50 of 200,000" in big_view.page_label.value
        assert "page 1 of 4,000" in big_view.page_label.value

    def test_widget_state_holds_only_that_page(self, big_view, big_ledger):
        size = state_size(big_view)
        one_page = len(output_html(big_view.table))
        assert size < one_page + 30_000, size  # the page plus the controls' own state
        assert size < 100_000
        # Only the first page's events are in the state.
        assert "000000000049" in output_html(big_view.table)
        assert "000000000050" not in output_html(big_view.table)

    def test_paging_keeps_one_page_in_the_state(self, big_view):
        big_view.last_button.click()
        assert output_html(big_view.table).count("<tr>") == 50
        assert cells(output_html(big_view.table))[-7] == str(BIG - 1)
        assert big_view.next_button.disabled
        big_view.first_button.click()
        assert cells(output_html(big_view.table))[0] == "0"

    def test_filters_select_by_agent_kind_and_ticks(self, big_view):
        try:
            big_view.agent_filter.value = "herald"
            big_view.kind_filter.value = "tool.denied"
            big_view.tick_range.value = (100, 199)
            expected = [i for i in range(BIG)
                        if ACTORS[i % 3] == "herald" and KINDS[i % 4] == "tool.denied"
                        and 100 <= i // 20 <= 199]
            assert big_view.matches == len(expected)
            assert [e.seq for e in big_view.page_events()] == expected[:50]
            assert f"filtered from {BIG:,}" in big_view.page_label.value
            assert list(big_view.frame()["seq"]) == expected
        finally:
            big_view.agent_filter.value = ALL
            big_view.kind_filter.value = ALL
            big_view.tick_range.value = (0, big_view.tick_range.max)


class TestSmallLedgers:
    def test_empty_view(self):
        view = LedgerView()
        assert "no events" in output_html(view.table)
        assert view.page_count == 1 and view.prev_button.disabled and view.next_button.disabled

    def test_no_match_says_so(self, registry, config_dir):
        from workbench import Conductor

        result = Conductor.from_config(config_dir, "oracle-grove", registry=registry).run(2)
        view = LedgerView(result)
        view.kind_filter.value = "tool.called"
        view.agent_filter.value = "scene-whisperer"
        assert view.matches == 0
        assert "no events match the filters" in output_html(view.table)

    def test_payload_column_on_request(self, registry, config_dir):
        from workbench import Conductor

        view = LedgerView(Conductor.from_config(config_dir, "oracle-grove",
                                                registry=registry).run(1))
        assert ">payload</th>" not in output_html(view.table)
        view.show_payload.value = True
        assert ">payload</th>" in output_html(view.table)

    def test_unordered_events_are_filtered_by_scan(self):
        events = [Event("x:0", i, t, "a.b", "w", {}, None, "0" * 64)
                  for i, t in enumerate([3, 1, 2, 1])]
        view = LedgerView(events)
        view.tick_range.value = (1, 1)
        assert [e.seq for e in view.page_events()] == [1, 3]

    def test_bad_page_size(self):
        with pytest.raises(ValueError, match="page_size"):
            LedgerView(page_size=0)


class TestExport:
    def test_jsonl_csv_and_parquet(self, tmp_path):
        import pandas as pd

        from workbench import Conductor
        from workbench.engine.ledger import JsonlLedgerStore
        from workbench.widgets import LedgerView

        result = Conductor.from_config("config", "oracle-grove").run()
        view = LedgerView(result)
        path = view.export(tmp_path / "run.jsonl")
        assert path.read_text() == result.ledger.to_jsonl()
        check = JsonlLedgerStore.verify(path)
        assert check.final_hash == result.final_hash and check.count == len(result.ledger)
        assert f"wrote {len(result.ledger)} events" in view.export_status.value
        view.kind_filter.value = "tool.called"
        for suffix in ("csv", "parquet"):
            out = view.export(tmp_path / f"calls.{suffix}")
            back = pd.read_csv(out) if suffix == "csv" else pd.read_parquet(out)
            assert len(back) == 10 and set(back["kind"]) == {"tool.called"}
            assert "omen" in back["payload"].iloc[0]

    def test_an_unknown_format_is_refused_and_writes_nothing(self, tmp_path):
        from workbench.widgets import LedgerView

        view = LedgerView([])
        view.export_path.value = str(tmp_path / "run.xlsx")
        view.export_button.click()
        assert "unknown export format 'xlsx'" in str(view.last_error)
        assert list(tmp_path.iterdir()) == []


class TestLongPayloads:
    def test_a_huge_payload_is_folded_on_the_page(self):
        big = {"tool": "flood", "params": {}, "result": {"text": "z" * 200_000}}
        view = LedgerView([Event("r:0", 0, 1, "tool.called", "a", big, None, "f" * 64)])
        view.show_payload.value = True
        shown = output_html(view.table)
        assert "<details" in shown and len(shown) < 30_000
        assert view.frame()["payload"].iloc[0] == big  # the frame is exact
