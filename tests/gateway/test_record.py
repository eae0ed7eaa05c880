"""The gateway's record, without processes: the run's format, one writer, bounded memory.

A gateway's ledger is read by the same tools as a run's: ``workbench verify`` and
``JsonlLedgerStore.read`` check its chain, and ``workbench resume`` refuses it in one line
(it is not a run). A second gateway on the same file fails before it starts anything.
"""

from __future__ import annotations

import pytest

from workbench.contracts.events import TOOL_CALLED, called_payload
from workbench.engine.calls_log import read_calls_log
from workbench.engine.ledger import JsonlLedgerStore
from workbench.errors import LedgerError
from workbench.gateway.record import KEPT_EVENTS, GatewayRecord, Ticket, default_ledger_path


def record(tmp_path, **kw):
    return GatewayRecord(tmp_path / "gw.jsonl", scenario="probe-house", agent="prober", **kw)


class TestTheLedger:
    def test_a_session_verifies_with_the_runs_tools(self, tmp_path):
        rec = record(tmp_path)
        rec.started({"scenario": "probe-house", "agent": "prober", "tools": ["ok"],
                     "servers": ["hostile"]})
        ticket = Ticket("ok")
        rec.answered(ticket, {"tool": "ok", "approved": True})
        event, _ = rec.outcome(ticket, TOOL_CALLED, called_payload("ok", {}, result={}),
                               outcome="ok", transport="stdio:hostile")
        rec.stopped("done")
        found = JsonlLedgerStore.read(tmp_path / "gw.jsonl")
        assert found.complete and found.final_hash == rec.final_hash
        assert [e.kind for e in found.events] == ["gateway.started", "approval.answered",
                                                  "tool.called", "gateway.stopped"]
        assert event.caused_by == 1 and event.tick == 1 == found.events[1].tick
        assert found.run_id == "gateway:probe-house:prober"
        assert read_calls_log(tmp_path / "gw.calls.jsonl")[2]["transport"] == "stdio:hostile"

    def test_resume_refuses_it_in_one_line(self, tmp_path, capsys):
        from workbench.cli import main

        rec = record(tmp_path)
        rec.started({"scenario": "probe-house", "agent": "prober", "tools": [],
                     "servers": []})
        rec.stopped("done")
        assert main(["resume", str(tmp_path / "gw.jsonl")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "only a ledger written by a run" in err

    def test_a_second_writer_is_refused(self, tmp_path):
        first = record(tmp_path)
        with pytest.raises(LedgerError):
            record(tmp_path, overwrite=True)
        first.close()

    def test_memory_keeps_the_latest_events_and_the_file_keeps_all(self, tmp_path):
        rec = record(tmp_path)
        for i in range(KEPT_EVENTS + 40):
            ticket = Ticket("ok")
            rec.outcome(ticket, TOOL_CALLED, called_payload("ok", {"i": i}, result={}),
                        outcome="ok", transport="x")
        rec.close()
        assert len(rec.events) == KEPT_EVENTS
        assert rec.events[-1].seq == KEPT_EVENTS + 39
        assert JsonlLedgerStore.verify(tmp_path / "gw.jsonl").count == KEPT_EVENTS + 40

    def test_a_gateway_that_never_started_leaves_no_files(self, tmp_path):
        record(tmp_path).discard()
        assert list(tmp_path.iterdir()) == []


class TestWhereItWrites:
    def test_the_default_is_a_new_file_under_the_state_directory(self, tmp_path):
        path = default_ledger_path("watch-house", "timekeeper",
                                   env={"XDG_STATE_HOME": str(tmp_path)})
        assert path.parent == tmp_path / "workbench" / "gateway"
        assert path.name.startswith("watch-house-timekeeper-") and path.suffix == ".jsonl"

    def test_the_variable_wins(self, tmp_path):
        path = default_ledger_path("s", "a", env={"WORKBENCH_GATEWAY_LEDGER_DIR": str(tmp_path),
                                                 "XDG_STATE_HOME": "/elsewhere"})
        assert path.parent == tmp_path
