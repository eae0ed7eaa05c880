"""Every command answers bad input with one line ``error: ...`` and exit 2, never a traceback.

The sweep is a table: each row is one command line (and environment) a new user could type,
run against a fresh workspace of broken files. Each row is its own test id. Rows whose
command is a check (``validate``, ``surface validate``, ``mcp-tool``) and whose input is a
broken file *inside* a config or surface directory expect the check's report (exit 1, the
file named), because reporting such files is that command's job; everything else expects
exactly one stderr line starting ``error: ``, exit 2, no traceback and nothing written.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from workbench.cli import main

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parent.parent
NOT_UTF8 = b"name: caf\xe9\xff\n"
TOOL = {"name": "echo", "description": "Echo a message.",
        "parameters": {"type": "object", "properties": {"msg": {"type": "string"}}}}
DEMO = f"{sys.executable} -m workbench.surface.demo_server"


@dataclass(frozen=True)
class Row:
    """One bad invocation: argv (``{T}`` is the workspace), environment, what to expect."""

    id: str
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    stdin: bytes | None = None
    code: int = 2  # 2: one `error:` line; 1: a check's report naming the problem
    says: str = ""  # a fragment the message must hold (the file, flag or what is allowed)


def R(id: str, *argv: str, **kw) -> Row:  # noqa: N802 - a table constructor
    return Row(id, argv, **kw)


ROWS = [
    # -- run ------------------------------------------------------------------------------
    R("run-ticks-negative", "run", "oracle-grove", "--ticks", "-1", says="--ticks"),
    R("run-ticks-not-int", "run", "oracle-grove", "--ticks", "many", says="--ticks"),
    R("run-seed-not-int", "run", "oracle-grove", "--seed", "x", says="--seed"),
    R("run-format-unknown", "run", "oracle-grove", "--format", "xml", says="--format"),
    R("run-no-scenario", "run", says="scenario"),
    R("run-unknown-flag", "run", "oracle-grove", "--tick", "2", says="--tick"),
    R("run-config-missing", "run", "oracle-grove", "--config", "{T}/nope", says="{T}/nope"),
    R("run-config-is-file", "run", "oracle-grove", "--config", "{T}/file.txt",
      says="{T}/file.txt"),
    R("run-config-under-file", "run", "oracle-grove", "--config", "{T}/file.txt/sub",
      says="{T}/file.txt"),
    R("run-agent-not-utf8", "run", "oracle-grove", "--config", "{T}/c_latin1",
      says="fortune-teller.yaml"),
    R("run-agent-empty", "run", "oracle-grove", "--config", "{T}/c_empty",
      says="fortune-teller.yaml"),
    R("run-agent-list", "run", "oracle-grove", "--config", "{T}/c_list",
      says="fortune-teller.yaml"),
    R("run-agent-directory", "run", "oracle-grove", "--config", "{T}/c_dir",
      says="fortune-teller.yaml"),
    R("run-scenario-not-utf8", "run", "oracle-grove", "--config", "{T}/c_scn_latin1",
      says="oracle-grove.yaml"),
    R("run-scenario-command-unbalanced", "run", "oracle-grove", "--config", "{T}/c_cmd_quote",
      says="servers[0].command"),
    R("run-scenario-command-empty", "run", "oracle-grove", "--config", "{T}/c_cmd_empty",
      says="servers[0].command"),
    R("run-yaml-bomb", "run", "oracle-grove", "--config", "{T}/c_bomb", says="alias"),
    R("run-ledger-is-directory", "run", "oracle-grove", "--ticks", "1", "--ledger", "{T}/adir",
      says="{T}/adir"),
    R("run-ledger-under-file", "run", "oracle-grove", "--ticks", "1", "--ledger",
      "{T}/file.txt/run.jsonl", says="{T}/file.txt"),
    R("run-mcp-servers-unbalanced", "run", "oracle-grove", "--ticks", "1",
      env={"MCP_SERVERS": "python -m 'workbench.tools.mcp.server"}, says="MCP_SERVERS"),
    R("run-mcp-servers-empty-part", "run", "oracle-grove", "--ticks", "1",
      env={"MCP_SERVERS": "::"}, says="MCP_SERVERS"),
    R("run-mcp-timeout-not-number", "run", "oracle-grove", "--ticks", "1",
      env={"MCP_ORACLE": "1", "WORKBENCH_MCP_TIMEOUT": "soon"}, says="WORKBENCH_MCP_TIMEOUT"),
    # -- resume ---------------------------------------------------------------------------
    R("resume-missing", "resume", "{T}/nope.jsonl", says="{T}/nope.jsonl"),
    R("resume-directory", "resume", "{T}/adir", says="{T}/adir"),
    R("resume-under-file", "resume", "{T}/file.txt/run.jsonl", says="{T}/file.txt"),
    R("resume-not-utf8", "resume", "{T}/latin1.bin", says="{T}/latin1.bin"),
    R("resume-empty", "resume", "{T}/empty", says="{T}/empty"),
    R("resume-a-list", "resume", "{T}/list.json", says="{T}/list.json"),
    R("resume-config-missing", "resume", "{T}/cut.jsonl", "--config", "{T}/nope",
      says="{T}/nope"),
    # -- verify ---------------------------------------------------------------------------
    R("verify-missing", "verify", "{T}/nope.jsonl", says="{T}/nope.jsonl"),
    R("verify-directory", "verify", "{T}/adir", says="{T}/adir"),
    R("verify-under-file", "verify", "{T}/file.txt/run.jsonl", says="{T}/file.txt"),
    R("verify-not-utf8", "verify", "{T}/latin1.bin", says="{T}/latin1.bin"),
    R("verify-a-list", "verify", "{T}/list.json", says="{T}/list.json"),
    # -- validate, scenarios --------------------------------------------------------------
    R("validate-missing", "validate", "{T}/nope", says="{T}/nope"),
    R("validate-is-file", "validate", "{T}/file.txt", says="{T}/file.txt"),
    R("validate-under-file", "validate", "{T}/file.txt/sub", says="{T}/file.txt"),
    R("validate-agent-not-utf8", "validate", "{T}/c_latin1", code=1, says="not UTF-8"),
    R("validate-agent-directory", "validate", "{T}/c_dir", code=1, says="fortune-teller.yaml"),
    R("validate-scenario-command-unbalanced", "validate", "{T}/c_cmd_quote", code=1,
      says="servers[0].command"),
    R("validate-scenario-command-empty", "validate", "{T}/c_cmd_empty", code=1,
      says="servers[0].command"),
    R("validate-yaml-bomb", "validate", "{T}/c_bomb", code=1, says="alias"),
    R("scenarios-config-missing", "scenarios", "--config", "{T}/nope", says="{T}/nope"),
    # -- surface validate -------------------------------------------------------------------
    R("surface-validate-missing", "surface", "validate", "{T}/nope", says="{T}/nope"),
    R("surface-validate-is-file", "surface", "validate", "{T}/file.txt", says="{T}/file.txt"),
    R("surface-validate-under-file", "surface", "validate", "{T}/file.txt/s",
      says="{T}/file.txt"),
    R("surface-validate-tools-not-utf8", "surface", "validate", "{T}/s_latin1", code=1,
      says="not UTF-8"),
    R("surface-validate-tools-empty", "surface", "validate", "{T}/s_empty", code=1,
      says="empty"),
    R("surface-validate-tools-list", "surface", "validate", "{T}/s_list", code=1,
      says="tools.json"),
    R("surface-validate-tools-directory", "surface", "validate", "{T}/s_dirtools", code=1,
      says="directory"),
    R("surface-validate-policy-not-utf8", "surface", "validate", "{T}/s_policy_latin1",
      code=1, says="policy.json"),
    R("surface-validate-policy-list", "surface", "validate", "{T}/s_policy_list", code=1,
      says="policy.json"),
    R("surface-validate-pins-not-utf8", "surface", "validate", "{T}/s_pins_latin1", code=1,
      says="pins.json"),
    R("surface-no-action", "surface", says="surface"),
    # -- mcp-tool -------------------------------------------------------------------------
    R("mcp-tool-missing", "mcp-tool", "--path", "{T}/nope", says="{T}/nope"),
    R("mcp-tool-is-file", "mcp-tool", "--path", "{T}/file.txt", says="{T}/file.txt"),
    R("mcp-tool-no-path", "mcp-tool", says="--path"),
    R("mcp-tool-tools-not-utf8", "mcp-tool", "--path", "{T}/s_latin1", code=1,
      says="not UTF-8"),
    # -- surface apply --------------------------------------------------------------------
    R("apply-edits-missing", "surface", "apply", "{T}/s_ok", "{T}/nope.json",
      says="{T}/nope.json"),
    R("apply-edits-directory", "surface", "apply", "{T}/s_ok", "{T}/adir", says="{T}/adir"),
    R("apply-edits-under-file", "surface", "apply", "{T}/s_ok", "{T}/file.txt/e.json",
      says="{T}/file.txt"),
    R("apply-edits-not-utf8", "surface", "apply", "{T}/s_ok", "{T}/latin1.bin",
      says="{T}/latin1.bin"),
    R("apply-edits-empty", "surface", "apply", "{T}/s_ok", "{T}/empty", says="{T}/empty"),
    R("apply-edits-a-string", "surface", "apply", "{T}/s_ok", "{T}/scalar.json",
      says="{T}/scalar.json"),
    R("apply-edits-not-objects", "surface", "apply", "{T}/s_ok", "{T}/numbers.json",
      says="{T}/numbers.json"),
    R("apply-stdin-not-utf8", "surface", "apply", "{T}/s_ok", "-", stdin=NOT_UTF8,
      says="<stdin>"),
    R("apply-stdin-empty", "surface", "apply", "{T}/s_ok", "-", stdin=b"", says="<stdin>"),
    R("apply-dir-missing", "surface", "apply", "{T}/nope", "{T}/edits.json", says="{T}/nope"),
    R("apply-dir-under-file", "surface", "apply", "{T}/file.txt/s", "{T}/edits.json",
      says="{T}/file.txt"),
    R("apply-tools-not-utf8", "surface", "apply", "{T}/s_latin1", "{T}/edits.json",
      says="tools.json"),
    R("apply-tools-a-list", "surface", "apply", "{T}/s_list", "{T}/edits.json",
      says="tools.json"),
    R("apply-policy-list", "surface", "apply", "{T}/s_policy_list", "{T}/edits.json",
      says="policy.json"),
    # -- surface import -------------------------------------------------------------------
    R("import-server-empty", "surface", "import", "--server", "", "--out", "{T}/new",
      says="--server"),
    R("import-server-blank", "surface", "import", "--server", "   ", "--out", "{T}/new",
      says="--server"),
    R("import-server-unbalanced", "surface", "import", "--server", "python -m 'x", "--out",
      "{T}/new", says="--server"),
    R("import-names-fewer", "surface", "import", "--server", DEMO, "--server", DEMO, "--name",
      "a", "--out", "{T}/new", says="--name"),
    R("import-names-more", "surface", "import", "--server", DEMO, "--name", "a", "--name", "b",
      "--out", "{T}/new", says="--name"),
    R("import-settle-inf", "surface", "import", "--server", DEMO, "--out", "{T}/new",
      "--settle", "inf", says="--settle"),
    R("import-settle-nan", "surface", "import", "--server", DEMO, "--out", "{T}/new",
      "--settle", "nan", says="--settle"),
    R("import-settle-negative", "surface", "import", "--server", DEMO, "--out", "{T}/new",
      "--settle", "-1", says="--settle"),
    R("import-out-is-file", "surface", "import", "--server", DEMO, "--out", "{T}/file.txt",
      says="{T}/file.txt"),
    R("import-out-under-file", "surface", "import", "--server", DEMO, "--out",
      "{T}/file.txt/s", says="{T}/file.txt"),
    R("import-out-tools-a-directory", "surface", "import", "--server", DEMO, "--out",
      "{T}/s_dirtools", says="tools.json: is a directory"),
    R("import-out-tools-not-utf8", "surface", "import", "--server", DEMO, "--out",
      "{T}/s_latin1", says="tools.json"),
    # -- surface diff ---------------------------------------------------------------------
    R("diff-dir-missing", "surface", "diff", "{T}/nope", "--against", "{T}/s_ok",
      says="{T}/nope"),
    R("diff-against-missing", "surface", "diff", "{T}/s_ok", "--against", "{T}/nope",
      says="{T}/nope"),
    R("diff-against-is-file", "surface", "diff", "{T}/s_ok", "--against", "{T}/file.txt",
      says="{T}/file.txt"),
    R("diff-pins-not-utf8", "surface", "diff", "{T}/s_pins_latin1", "--against", "{T}/s_ok",
      says="pins.json"),
    R("diff-tools-a-list", "surface", "diff", "{T}/s_list", "--against", "{T}/s_ok",
      says="tools.json"),
    R("diff-server-empty", "surface", "diff", "{T}/s_ok", "--server", "", says="--server"),
    R("diff-server-unbalanced", "surface", "diff", "{T}/s_ok", "--server", "node 'x",
      says="--server"),
    R("diff-settle-inf", "surface", "diff", "{T}/s_ok", "--server", DEMO, "--settle", "inf",
      says="--settle"),
    R("diff-no-source", "surface", "diff", "{T}/s_ok", says="--server"),
    # -- surface approve ------------------------------------------------------------------
    R("approve-dir-missing", "surface", "approve", "{T}/nope", "echo", "--server", DEMO,
      says="{T}/nope"),
    R("approve-dir-is-file", "surface", "approve", "{T}/file.txt", "echo", "--server", DEMO,
      says="{T}/file.txt"),
    R("approve-pins-not-utf8", "surface", "approve", "{T}/s_pins_latin1", "echo", "--server",
      DEMO, says="pins.json"),
    R("approve-server-empty", "surface", "approve", "{T}/s_ok", "echo", "--server", "",
      says="--server"),
    R("approve-server-unbalanced", "surface", "approve", "{T}/s_ok", "echo", "--server",
      '"python', says="--server"),
    R("approve-settle-negative", "surface", "approve", "{T}/s_ok", "echo", "--server", DEMO,
      "--settle", "-0.5", says="--settle"),
    # -- audit ----------------------------------------------------------------------------
    R("audit-nothing-given", "audit", says="--tools-json"),
    R("audit-tools-json-missing", "audit", "--tools-json", "{T}/nope.json",
      says="{T}/nope.json"),
    R("audit-tools-json-directory", "audit", "--tools-json", "{T}/adir", says="{T}/adir"),
    R("audit-tools-json-under-file", "audit", "--tools-json", "{T}/file.txt/t.json",
      says="{T}/file.txt"),
    R("audit-tools-json-not-utf8", "audit", "--tools-json", "{T}/latin1.bin",
      says="{T}/latin1.bin"),
    R("audit-tools-json-empty", "audit", "--tools-json", "{T}/empty", says="{T}/empty"),
    R("audit-tools-json-a-string", "audit", "--tools-json", "{T}/scalar.json",
      says="{T}/scalar.json"),
    R("audit-server-empty", "audit", "--server", "", says="--server"),
    R("audit-server-unbalanced", "audit", "--server", "python -c 'x", says="--server"),
    R("audit-settle-inf", "audit", "--tools-json", "{T}/s_ok/tools.json", "--settle", "inf",
      says="--settle"),
    R("audit-fail-on-unknown", "audit", "--tools-json", "{T}/s_ok/tools.json", "--fail-on",
      "low", says="--fail-on"),
    R("audit-explain-unknown-rule", "audit", "--explain", "AUD-NOPE-1", says="AUD-NOPE-1"),
    # -- serve ----------------------------------------------------------------------------
    R("serve-port-too-big", "serve", "--http", "99999", says="--http"),
    R("serve-port-negative", "serve", "--http", "-1", says="--http"),
    R("serve-port-not-int", "serve", "--http", "web", says="--http"),
    R("serve-host-empty", "serve", "--http", "8000", "--host", "", says="--host"),
    # -- sweep ----------------------------------------------------------------------------
    R("sweep-seeds-backwards", "sweep", "oracle-grove", "--seeds", "9-1", "--out", "{T}/sw",
      says="--seeds"),
    R("sweep-set-no-value", "sweep", "oracle-grove", "--set", "nokey", "--out", "{T}/sw",
      says="--set"),
    R("sweep-set-unknown-agent", "sweep", "oracle-grove", "--set", "agents.nobody.tools=[]",
      "--out", "{T}/sw", says="nobody"),
    R("sweep-workers-zero", "sweep", "oracle-grove", "--workers", "0", "--out", "{T}/sw",
      says="--workers"),
    R("sweep-out-under-file", "sweep", "oracle-grove", "--out", "{T}/file.txt/sw",
      says="--out"),
    R("sweep-config-missing", "sweep", "oracle-grove", "--config", "{T}/nope", "--out",
      "{T}/sw", says="{T}/nope"),
    R("sweep-no-out", "sweep", "oracle-grove", says="--out"),
    # -- test -----------------------------------------------------------------------------
    R("test-config-missing", "test", "{T}/nope", says="{T}/nope"),
    R("test-scenario-unknown", "test", "config", "--scenario", "nowhere", says="nowhere"),
    R("test-force-alone", "test", "config", "--force", says="--force"),
    R("test-junit-under-file", "test", "config", "--junit", "{T}/file.txt/j.xml",
      says="--junit"),
    R("test-freeze-unknown", "test", "config", "--freeze", "nowhere", says="nowhere"),
    # -- eval -----------------------------------------------------------------------------
    R("eval-dir-missing", "eval", "{T}/nope", says="{T}/nope"),
    R("eval-tasks-missing", "eval", "{T}/s_ok", "--tasks", "{T}/none.jsonl",
      says="{T}/none.jsonl"),
    R("eval-tasks-not-utf8", "eval", "{T}/s_ok", "--tasks", "{T}/latin1.bin",
      says="{T}/latin1.bin"),
    R("eval-tasks-directory", "eval", "{T}/s_ok", "--tasks", "{T}/adir", says="{T}/adir"),
    R("eval-selector-unknown", "eval", "{T}/s_ok", "--selector", "magic", says="--selector"),
    R("eval-model-without-name", "eval", "{T}/s_ok", "--selector", "model", says="--model"),
    R("eval-threshold-nan", "eval", "{T}/s_ok", "--threshold", "nan", says="--threshold"),
    R("eval-against-missing", "eval", "{T}/s_ok", "--against", "{T}/nope", says="{T}/nope"),
    # -- no command ---------------------------------------------------------------------
    # -- gateway ------------------------------------------------------------------------
    R("gateway-no-agent", "gateway", "watch-house", says="--agent"),
    R("gateway-unknown-scenario", "gateway", "nope", "--agent", "timekeeper", "--ledger",
      "{T}/gw.jsonl", says="nope"),
    R("gateway-agent-not-in-cast", "gateway", "watch-house", "--agent", "clerk", "--ledger",
      "{T}/gw.jsonl", says="'clerk' is not in scenario 'watch-house'"),
    R("gateway-ledger-exists", "gateway", "watch-house", "--agent", "timekeeper", "--ledger",
      "{T}/file.txt", says="{T}/file.txt"),
    R("gateway-ledger-under-file", "gateway", "watch-house", "--agent", "timekeeper",
      "--ledger", "{T}/file.txt/gw.jsonl", says="{T}/file.txt"),
    R("gateway-port-bad", "gateway", "watch-house", "--agent", "timekeeper", "--http",
      "70000", says="--http"),
    R("gateway-approval-timeout-bad", "gateway", "watch-house", "--agent", "timekeeper",
      "--ledger", "{T}/gw.jsonl", env={"WORKBENCH_GATEWAY_APPROVAL_TIMEOUT": "-1"},
      says="WORKBENCH_GATEWAY_APPROVAL_TIMEOUT"),
    R("gateway-print-config-unknown-host", "gateway", "watch-house", "--agent",
      "timekeeper", "--print-config", "emacs", says="--print-config"),
    R("gateway-print-config-claude-http", "gateway", "watch-house", "--agent", "timekeeper",
      "--print-config", "claude", "--http", "8765", says="stdio"),
    R("unknown-command", "frobnicate", says="frobnicate"),
]


def build_workspace(root: Path) -> None:
    """The broken (and a few good) files the rows name, under ``root``."""
    (root / "file.txt").write_text("x\n")
    (root / "adir").mkdir()
    (root / "latin1.bin").write_bytes(NOT_UTF8)
    (root / "empty").write_bytes(b"")
    (root / "list.json").write_text("[]\n")
    (root / "scalar.json").write_text('"text"\n')
    (root / "numbers.json").write_text("[1, 2]\n")
    (root / "edits.json").write_text(json.dumps(
        [{"tool": "echo", "kind": "description", "value": "Say it back."}]))
    surfaces = {
        "s_ok": {},
        "s_latin1": {"tools.json": NOT_UTF8},
        "s_empty": {"tools.json": b""},
        "s_list": {"tools.json": b"[]"},
        "s_dirtools": {"tools.json": None},
        "s_policy_latin1": {"policy.json": NOT_UTF8},
        "s_policy_list": {"policy.json": b"[]"},
        "s_pins_latin1": {"pins.json": NOT_UTF8},
    }
    good_tools = json.dumps({"tools": [TOOL]}).encode()
    for name, files in surfaces.items():
        d = root / name
        d.mkdir()
        (d / "tools.json").write_bytes(good_tools)
        for file, content in files.items():
            target = d / file
            target.unlink(missing_ok=True)
            if content is None:
                target.mkdir()
            else:
                target.write_bytes(content)
    agent = Path("agents/fortune-teller.yaml")
    scenario = Path("scenarios/oracle-grove.yaml")
    server = "servers:\n  - name: x\n    command: {}\n"
    bomb = ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n"
                      for i in range(8)))
    configs = {
        "c_latin1": (agent, NOT_UTF8),
        "c_empty": (agent, b""),
        "c_list": (agent, b"- name: fortune-teller\n"),
        "c_dir": (agent, None),
        "c_scn_latin1": (scenario, NOT_UTF8),
        "c_cmd_quote": (scenario, server.format("\"python -m 'x\"").encode()),
        "c_cmd_empty": (scenario, server.format('""').encode()),
        "c_bomb": (agent, None),
    }
    for name, (rel, content) in configs.items():
        d = root / name
        shutil.copytree(REPO / "config", d)
        target = d / rel
        original = target.read_bytes()
        target.unlink()
        # (c_dir and c_bomb replace the file; c_cmd_* append a server to the scenario)
        if name.startswith("c_cmd"):
            target.write_bytes(original + content)
        elif name == "c_bomb":  # a billion laughs in a scripted call's params
            target.write_text(
                "name: fortune-teller\nrole: worker\nmodel: {backend: scripted}\n"
                "may_emit: [oracle.spoke]\ntools: [oracle]\n"
                "script:\n  - call: oracle\n    params:\n"
                + "".join(f"      {line}\n" for line in bomb.splitlines()))
        elif content is None:
            target.mkdir()
        else:
            target.write_bytes(content)
    # The default --config (cwd is the workspace), and a ledger cut short, to resume.
    shutil.copytree(REPO / "config", root / "config")
    ledger = root / "cut.jsonl"
    subprocess.run([sys.executable, "-m", "workbench.cli", "run", "oracle-grove", "--ticks",
                    "2", "--format", "jsonl", "--ledger", str(ledger)], env=_env(),
                   capture_output=True, check=True, cwd=root)
    lines = ledger.read_bytes().splitlines(keepends=True)
    ledger.write_bytes(b"".join(lines[:-1]))  # no run.finished: resumable


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("MCP_SERVERS", "MCP_ORACLE", "WORKBENCH_MCP_TIMEOUT")}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra or {})
    return env


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (None for a directory)."""
    return {str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
            for p in sorted(root.rglob("*"))}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    build_workspace(root)
    return root


@pytest.fixture
def workspace(pristine, tmp_path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(pristine, root, symlinks=True)
    return root


def call(row: Row, root: Path, monkeypatch, capsys) -> tuple[int | None, str, str]:
    """Run ``main(argv)`` in this process the way the console script would."""
    argv = [a.replace("{T}", str(root)) for a in row.argv]
    for key in ("MCP_SERVERS", "MCP_ORACLE", "WORKBENCH_MCP_TIMEOUT"):
        monkeypatch.delenv(key, raising=False)
    for key, value in row.env.items():
        monkeypatch.setenv(key, value)
    if row.stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(row.stdin), "utf-8"))
    monkeypatch.chdir(root)
    try:
        code: int | None = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - what escapes main is a traceback for the user
        captured = capsys.readouterr()
        return None, captured.out, captured.err + "Traceback\n" + traceback.format_exc()
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input_is_one_line(row, workspace, monkeypatch, capsys):
    before = snapshot(workspace)
    code, out, err = call(row, workspace, monkeypatch, capsys)
    assert "Traceback" not in err and "Traceback" not in out, err
    says = row.says.replace("{T}", str(workspace))
    if row.code == 2:
        lines = err.splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
        assert says in lines[0], lines[0]
    else:
        assert code == 1, (code, out, err)
        assert says in out + err, out + err
    # Nothing lost, nothing made: a refused command leaves every file as it was.
    assert snapshot(workspace) == before


def test_the_table_covers_every_command():
    from workbench.cli import _parser

    commands = set()
    for action in _parser()._subparsers._group_actions[0].choices.items():
        name, parser = action
        if name == "surface":
            commands |= {f"surface {a}" for a in parser._subparsers._group_actions[0].choices}
        else:
            commands.add(name)
    tried = {" ".join(r.argv[:2]) if r.argv and r.argv[0] == "surface" and len(r.argv) > 1
             else r.argv[0] if r.argv else "" for r in ROWS}
    assert commands <= tried, commands - tried
