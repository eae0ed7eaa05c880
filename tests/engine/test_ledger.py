from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from workbench.contracts.canonical import canonical_json
from workbench.contracts.events import GENESIS_HASH, chain_hash
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


def rehash(path: Path, key: bytes | None = None) -> None:
    """Recompute every hash of a ledger file: what a forger without the key can do."""
    head = GENESIS_HASH
    out = []
    for line in path.read_bytes().splitlines():
        content = line[: line.rindex(b',"hash":"')] + b"}"
        head = chain_hash(head, content, key)
        out.append(content[:-1] + b',"hash":"' + head.encode() + b'"}\n')
    path.write_bytes(b"".join(out))


class TestVerifyCli:
    def write(self, path: Path, n: int = 3, key: bytes | None = None) -> Ledger:
        with JsonlLedgerStore(path) as store:
            ledger = Ledger("test:0", store, key=key)
            for i in range(n):
                ledger.append(i, "world.observed", "world", {"text": f"scene {i}"})
        return ledger

    @pytest.mark.parametrize("tail", [b"{", b'{"actor":"world"', b"\x00\x00", b"x"])
    def test_trailing_bytes_that_are_not_an_event_fail(self, tmp_path, capsys, tail):
        from workbench.cli import main

        path = tmp_path / "run.jsonl"
        self.write(path)
        assert main(["verify", str(path)]) == 0
        path.write_bytes(path.read_bytes() + tail)
        assert main(["verify", str(path)]) == 1
        err = capsys.readouterr().err
        assert "line 4 is not a complete event" in err and err.count("\n") == 1

    def test_an_empty_ledger_fails(self, tmp_path, capsys):
        from workbench.cli import main

        path = tmp_path / "run.jsonl"
        path.write_bytes(b"")
        assert main(["verify", str(path)]) == 1
        assert "holds no event" in capsys.readouterr().err

    def test_a_keyed_chain_catches_a_rehashed_forgery(self, tmp_path, capsys, monkeypatch):
        from workbench.cli import main

        path = tmp_path / "run.jsonl"
        key = b"correct horse battery staple"
        ledger = self.write(path, key=key)
        monkeypatch.setenv("WORKBENCH_LEDGER_KEY", key.decode())
        assert main(["verify", str(path), "--hash", ledger.final_hash]) == 0
        assert "keyed hash chain verified" in capsys.readouterr().out
        # A plain re-hash after an edit: fine for a plain chain, caught by the key.
        edit_lines(path, replace_in_line(1, "scene 1", "scene X"))
        rehash(path)
        assert main(["verify", str(path)]) == 2
        assert "or it was written with another WORKBENCH_LEDGER_KEY" in capsys.readouterr().err
        monkeypatch.delenv("WORKBENCH_LEDGER_KEY")
        assert main(["verify", str(path)]) == 0  # what a plain chain cannot tell
        rehash(path, b"a guessed key")
        monkeypatch.setenv("WORKBENCH_LEDGER_KEY", key.decode())
        assert main(["verify", str(path)]) == 2

    def test_a_keyed_ledger_without_its_key_says_so(self, tmp_path, capsys, monkeypatch):
        from workbench.cli import main

        path = tmp_path / "run.jsonl"
        self.write(path, key=b"k")
        monkeypatch.delenv("WORKBENCH_LEDGER_KEY", raising=False)
        assert main(["verify", str(path)]) == 2
        assert "set WORKBENCH_LEDGER_KEY to verify a keyed chain" in capsys.readouterr().err

    def test_the_key_is_written_nowhere(self, repo_root, tmp_path, monkeypatch):
        from workbench.engine.conductor import Conductor
        from workbench.tools.builtins import register_builtins
        from workbench.tools.registry import ToolRegistry

        monkeypatch.setenv("WORKBENCH_LEDGER_KEY", "s3cr3t-key-material")
        path = tmp_path / "run.jsonl"
        Conductor.from_config(repo_root / "config", "oracle-grove", ledger_path=path,
                              registry=register_builtins(ToolRegistry())).run(3)
        JsonlLedgerStore.read(path, key=b"s3cr3t-key-material")
        with pytest.raises(LedgerTampered):
            JsonlLedgerStore.read(path)
        for file in tmp_path.iterdir():
            assert b"s3cr3t" not in file.read_bytes()


@pytest.mark.timeout(600)  # real processes, started side by side on a loaded machine
class TestOneWriter:
    def long_run(self, cli, env, repo_root, path, *extra):
        return subprocess.Popen(
            [*cli, "run", "oracle-grove", "--ticks", "100000000", "--ledger", str(path),
             "--format", "jsonl", "--config", str(repo_root / "config"), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)

    def wait_for_bytes(self, path: Path, proc, size: int = 20_000) -> None:
        deadline = time.monotonic() + 60
        while not (path.exists() and path.stat().st_size > size):
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the run wrote nothing"
            time.sleep(0.02)

    @pytest.mark.parametrize("second", [["run", "--overwrite"], ["run"], ["resume"]])
    @pytest.mark.slow
    def test_a_second_writer_fails_at_once_with_one_line(self, tmp_path, workbench_cli,
                                                         offline_env, repo_root, second):
        path = tmp_path / "run.jsonl"
        first = self.long_run(workbench_cli, offline_env, repo_root, path)
        try:
            self.wait_for_bytes(path, first)
            if second[0] == "run":
                cmd = [*workbench_cli, "run", "oracle-grove", "--ticks", "3", "--ledger",
                       str(path), *second[1:]]
            else:
                cmd = [*workbench_cli, "resume", str(path)]
            out = subprocess.run([*cmd, "--config", str(repo_root / "config")], env=offline_env,
                                 capture_output=True, text=True, timeout=120)
            assert first.poll() is None  # the first writer was never disturbed
        finally:
            os.kill(first.pid, signal.SIGKILL)
            first.wait()
        assert out.returncode == 2
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")
        assert ("being written by another run" in out.stderr if second != ["run"]
                else "exists" in out.stderr)
        found = JsonlLedgerStore.read(path)  # one writer's lines only: the chain holds
        assert found.events[0].payload["ticks"] == 100000000

    @pytest.mark.slow

    def test_two_overwriting_runs_started_together_never_corrupt(self, tmp_path, workbench_cli,
                                                                 offline_env, repo_root):
        path = tmp_path / "run.jsonl"
        path.write_text("an old run\n")
        for _ in range(4):
            procs = [subprocess.Popen(
                [*workbench_cli, "run", "oracle-grove", "--ticks", "200", "--ledger", str(path),
                 "--overwrite", "--format", "jsonl", "--config", str(repo_root / "config")],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=offline_env, text=True)
                for _ in range(2)]
            errors = [p.communicate(timeout=120)[1] for p in procs]
            codes = [p.returncode for p in procs]
            assert 0 in codes
            for code, err in zip(codes, errors, strict=True):
                if code:
                    assert code == 2 and err.count("\n") == 1
                    assert "being written by another run" in err
            found = JsonlLedgerStore.read(path)
            assert found.torn is None and found.events[-1].kind == "run.finished"
            assert len({e.seq for e in found.events}) == len(found.events)

    def test_the_lock_is_released_by_a_kill(self, tmp_path, workbench_cli, offline_env,
                                            repo_root):
        path = tmp_path / "run.jsonl"
        first = self.long_run(workbench_cli, offline_env, repo_root, path)
        try:
            self.wait_for_bytes(path, first)
        finally:
            os.kill(first.pid, signal.SIGKILL)
            first.wait()
        with JsonlLedgerStore(path, overwrite=True):
            pass  # the kernel dropped the dead writer's lock


class TestGenesisOnDisk:
    def test_the_genesis_is_synced_before_the_first_call(self, repo_root, tmp_path):
        from workbench.engine.conductor import Conductor
        from workbench.tools.registry import ToolRegistry

        path = tmp_path / "run.jsonl"
        seen = []

        def oracle(seed: str) -> dict:
            seen.append(JsonlLedgerStore.read(path).count)  # what a kill here would leave
            return {"omen": "a sign"}

        registry = ToolRegistry()
        registry.register("oracle", "An omen.", oracle)
        Conductor.from_config(repo_root / "config", "oracle-grove", ledger_path=path,
                              registry=registry).run(1)
        assert seen == [2]  # run.started and world.observed

    def test_a_failed_start_leaves_no_empty_ledger(self, config_dir, tmp_path):
        from workbench.engine.conductor import Conductor

        with (config_dir / "scenarios" / "oracle-grove.yaml").open("a") as fh:
            fh.write("servers:\n  - name: nowhere\n    command: \"/nonexistent/server\"\n")
        path = tmp_path / "run.jsonl"
        from workbench.errors import ToolCallError

        with pytest.raises(ToolCallError) as caught:
            Conductor.from_config(config_dir, "oracle-grove", ledger_path=path)
        assert caught.value.kind == "transport_error"
        assert not path.exists()
