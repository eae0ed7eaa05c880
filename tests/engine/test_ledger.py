from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from workbench.contracts.events import GENESIS_HASH, canonical_json, chain_hash
from workbench.engine.ledger import JsonlLedgerStore, Ledger
from workbench.errors import LedgerError, LedgerTampered


def small_ledger(store: JsonlLedgerStore | None = None, n: int = 5) -> Ledger:
    ledger = Ledger("test:0", store)
    for i in range(n):
        ledger.append(i, "world.observed", "world", {"text": f"scene {i} – ünïcode"},
                      None if i == 0 else i - 1)
    return ledger


def edit_lines(path: Path, change) -> None:
    """Rewrite a ledger file's lines with ``change(lines)`` (a tamper or a corruption)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    change(lines)
    path.write_text("".join(lines), encoding="utf-8")


def replace_in_line(index: int, old: str, new: str):
    def change(lines: list[str]) -> None:
        lines[index] = lines[index].replace(old, new)

    return change


class TestChain:
    def test_each_hash_chains_the_previous_one(self):
        ledger = small_ledger()
        prev = GENESIS_HASH
        for event in ledger:
            assert event.hash == chain_hash(prev, canonical_json(event.content()))
            prev = event.hash
        assert ledger.final_hash == prev
        ledger.verify()

    def test_changing_a_past_event_breaks_verification(self):
        ledger = small_ledger()
        ledger.events[2].payload["text"] = "rewritten"
        with pytest.raises(LedgerTampered, match="event seq 2"):
            ledger.verify()

    def test_canonical_json_ignores_key_order(self):
        assert canonical_json({"b": 1, "a": [1, {"d": 2, "c": 3}]}) == \
            canonical_json({"a": [1, {"c": 3, "d": 2}], "b": 1})


class TestStore:
    def test_round_trip_is_byte_identical(self, tmp_path):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            ledger = small_ledger(store)
        assert path.read_text(encoding="utf-8") == ledger.to_jsonl()
        found = JsonlLedgerStore.read(path)
        assert [e.to_dict() for e in found.events] == [e.to_dict() for e in ledger]
        assert found.torn is None and found.final_hash == ledger.final_hash
        assert "5 events, hash chain verified" in found.report()

    def test_verify_streams_the_same_verdict_without_building_events(self, tmp_path):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            ledger = small_ledger(store)
        check = JsonlLedgerStore.verify(path)
        assert (check.count, check.final_hash, check.torn) == (5, ledger.final_hash, None)
        path.write_bytes(path.read_bytes()[:-10])
        torn = JsonlLedgerStore.verify(path)
        assert (torn.count, torn.torn_line) == (4, 5) and torn.final_hash == ledger[3].hash
        edit_lines(path, replace_in_line(1, "scene 1", "scene 9"))
        with pytest.raises(LedgerTampered) as info:
            JsonlLedgerStore.verify(path)
        assert info.value.line == 2

    def test_refuses_to_overwrite_by_accident(self, tmp_path):
        path = tmp_path / "run.jsonl"
        path.write_text("x\n")
        with pytest.raises(LedgerError, match="exists"):
            JsonlLedgerStore(path)
        assert path.read_text() == "x\n"

    def test_an_empty_file_holds_no_run_and_is_taken_over(self, tmp_path):
        path = tmp_path / "run.jsonl"
        path.write_text("")  # what a run killed before its first event leaves
        with JsonlLedgerStore(path) as store:
            ledger = small_ledger(store, 2)
        assert JsonlLedgerStore.verify(path).final_hash == ledger.final_hash

    def test_tampered_line_is_detected_with_its_line_number(self, tmp_path):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            small_ledger(store)
        edit_lines(path, replace_in_line(3, "scene 3", "scene X"))
        with pytest.raises(LedgerTampered) as info:
            JsonlLedgerStore.read(path)
        assert info.value.line == 4
        assert "Events before line 4 verify" in str(info.value)

    def test_reordered_lines_are_detected(self, tmp_path):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            small_ledger(store)
        def swap(lines: list[str]) -> None:
            lines[1], lines[2] = lines[2], lines[1]

        edit_lines(path, swap)
        with pytest.raises(LedgerTampered):
            JsonlLedgerStore.read(path)

    @pytest.mark.parametrize("cut", [1, 20, 100])
    def test_torn_last_line_is_reported_not_hidden(self, tmp_path, cut):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            ledger = small_ledger(store)
        data = path.read_bytes()
        last_start = data.rstrip(b"\n").rfind(b"\n") + 1
        path.write_bytes(data[: last_start + cut])  # a write cut short mid-line
        found = JsonlLedgerStore.read(path)
        assert len(found.events) == 4
        assert found.final_hash == ledger[3].hash
        assert found.torn == data[last_start: last_start + cut].decode()
        assert found.torn_line == 5
        assert "line 5 is torn" in found.report()

    def test_resume_cuts_the_torn_line_and_appends(self, tmp_path):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            small_ledger(store)
        path.write_bytes(path.read_bytes()[:-30])
        found, store = JsonlLedgerStore.resume(path)
        assert found.torn is not None
        ledger = Ledger(found.run_id, store, found.events)
        ledger.append(9, "world.observed", "world", {"text": "again"})
        store.close()
        again = JsonlLedgerStore.read(path)
        assert again.torn is None and len(again.events) == 5
        assert again.final_hash == ledger.final_hash

    def test_garbage_in_the_middle_is_an_error_not_a_tear(self, tmp_path):
        path = tmp_path / "run.jsonl"
        with JsonlLedgerStore(path) as store:
            small_ledger(store)
        edit_lines(path, lambda lines: lines.insert(2, "not json\n"))
        with pytest.raises(LedgerError, match=":3:"):
            JsonlLedgerStore.read(path)


class TestKill:
    def test_sigkill_mid_run_leaves_a_verifiable_ledger(self, tmp_path, workbench_cli,
                                                       offline_env, repo_root):
        path = tmp_path / "killed.jsonl"
        proc = subprocess.Popen(
            [*workbench_cli, "run", "oracle-grove", "--ticks", "100000000", "--ledger",
             str(path), "--format", "jsonl", "--config", str(repo_root / "config")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=offline_env,
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if path.exists() and path.stat().st_size > 200_000:
                    break
                assert proc.poll() is None, proc.stderr.read().decode()
                time.sleep(0.05)
            else:
                pytest.fail("the run did not write 200 kB of ledger in 30 s")
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
        found = JsonlLedgerStore.read(path)  # verifies the chain
        assert len(found.events) > 500
        kinds = {e.kind for e in found.events}
        assert {"run.started", "tool.called", "oracle.spoke"} <= kinds
        assert "run.finished" not in kinds
        # What was flushed is whole ticks' worth of complete lines, or a reported tear.
        if found.torn is not None:
            assert found.torn_line == len(found.events) + 1
        assert json.loads(path.read_text().splitlines()[len(found.events) - 1])["seq"] == \
            len(found.events) - 1
