"""Read-only and full file systems: one ``error:`` line, exit 2, and the data stays as it was.

Each case runs the real CLI in a private mount namespace (``unshare -Urm``: no privileges
needed, nothing leaks to the host) on a small tmpfs holding a surface and a ledger. The
tmpfs is remounted read-only, or filled to the last byte, before the command runs; after
it, the tmpfs's files are copied out and compared with what was there before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.engine.ledger import JsonlLedgerStore

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parent.parent
TOOL = {"name": "echo", "description": "Echo a message.",
        "parameters": {"type": "object", "properties": {"msg": {"type": "string"}}}}
EDITS = [{"tool": "echo", "kind": "description", "value": "Say it back, word for word."}]

SCRIPT = r"""
set -e
mount -t tmpfs -o size=1m tmpfs "$MNT"
cp -a "$SRC/." "$MNT/"
case "$MODE" in
  ro) mount -o remount,ro "$MNT" ;;
  full) dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null || true ;;
esac
cd "$MNT"
set +e
"$@" >"$OUT/stdout" 2>"$OUT/stderr"
echo $? >"$OUT/rc"
rm -f "$MNT/filler"
mkdir "$OUT/after"
cp -a "$MNT/." "$OUT/after/"
"""


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def source(tmp_path) -> Path:
    """What the small file system holds: a surface, a ledger cut short, the edits."""
    src = tmp_path / "src"
    (src / "surface").mkdir(parents=True)
    (src / "surface" / "tools.json").write_text(json.dumps({"tools": [TOOL]}, indent=2))
    (src / "edits.json").write_text(json.dumps(EDITS))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("MCP_SERVERS", None)
    env.pop("MCP_ORACLE", None)
    ledger = src / "run.jsonl"
    subprocess.run([sys.executable, "-m", "workbench.cli", "run", "oracle-grove", "--ticks",
                    "12", "--format", "jsonl", "--ledger", str(ledger), "--config",
                    str(REPO / "config")], env=env, capture_output=True, check=True)
    # Killed after its genesis: a resume re-derives those events and must write the other
    # ~50 (more than the slack in the file's last page, which a full disk still allows).
    ledger.write_bytes(b"".join(ledger.read_bytes().splitlines(keepends=True)[:2]))
    (src / "run.calls.jsonl").unlink(missing_ok=True)
    return src


def on_small_fs(tmp_path: Path, source: Path, mode: str, *args: str):
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_SERVERS", "MCP_ORACLE")}
    env.update(PYTHONPATH=str(REPO), MNT=str(mnt), SRC=str(source), OUT=str(out), MODE=mode)
    done = subprocess.run(["unshare", "-Urm", "sh", "-c", SCRIPT, "sh", sys.executable, "-m",
                           "workbench.cli", *args], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()  # the harness itself worked
    return (int((out / "rc").read_text()), (out / "stderr").read_text(),
            tree(out / "after"))


COMMANDS = {  # the command, and the file its one line must name
    "surface-apply": (("surface", "apply", "surface", "edits.json"), "surface/tools.json"),
    "run-ledger": (("run", "oracle-grove", "--ticks", "2", "--ledger", "new.jsonl",
                    "--config", str(REPO / "config")), "new.jsonl"),
    "resume": (("resume", "run.jsonl", "--config", str(REPO / "config")), "run.jsonl"),
}


@pytest.mark.parametrize("mode", ["ro", "full"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_one_line_and_nothing_lost(tmp_path, source, mode, command):
    assert shutil.which("unshare"), "util-linux's unshare runs these cases"
    before = tree(source)
    argv, names = COMMANDS[command]
    code, err, after = on_small_fs(tmp_path, source, mode, *argv)
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    assert lines[0].startswith(f"error: {names}: "), lines[0]
    assert ("read-only" if mode == "ro" else "no space left") in lines[0], lines[0]
    # Every file that was there is byte for byte what it was; no temp file is left behind.
    # A ledger is append-only: a resume may have added whole, verified events before the
    # disk filled (progress kept, never a torn line), and nothing before them changed.
    grown = {"run.jsonl"} if command == "resume" else set()
    assert {k: v for k, v in after.items() if k in before and k not in grown} == \
        {k: v for k, v in before.items() if k not in grown}
    for name in grown:
        assert after[name].startswith(before[name])
        copy = tmp_path / "grown.jsonl"
        copy.write_bytes(after[name])
        assert JsonlLedgerStore.verify(copy).complete
    extra = set(after) - set(before)
    assert not any(name.endswith(".tmp") for name in extra), extra
