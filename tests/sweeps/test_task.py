"""Publishing a run's file: a temp name, then a rename; an earlier killed attempt's temp file
is removed once the run is in place."""

from __future__ import annotations

from workbench.sweeps.task import publish


def test_publish_puts_the_file_in_place_and_clears_a_dead_attempts_temp_file(tmp_path):
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    # What a worker killed mid-copy leaves behind (the atomic writer's temp file).
    stale = out / "runs" / ".seed-1.jsonl.k3j9x_qz.tmp"
    stale.write_text("half a ledg")
    other = out / "runs" / ".seed-10.jsonl.k3j9x_qz.tmp"  # another run's: kept
    other.write_text("x")
    local = tmp_path / "ledger.jsonl"
    local.write_text('{"seq": 0}\n')

    publish(local, str(out), "runs/seed-1.jsonl")

    assert (out / "runs" / "seed-1.jsonl").read_text() == '{"seq": 0}\n'
    assert not stale.exists()
    assert other.exists()
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        ".seed-10.jsonl.k3j9x_qz.tmp", "seed-1.jsonl"]


def test_publish_to_an_fsspec_url(tmp_path):
    local = tmp_path / "part.parquet"
    local.write_bytes(b"PAR1")
    publish(local, f"file://{tmp_path}/u", "events/v0/seed-2.parquet")
    assert (tmp_path / "u" / "events" / "v0" / "seed-2.parquet").read_bytes() == b"PAR1"
    assert not list((tmp_path / "u").rglob("*.partial"))
