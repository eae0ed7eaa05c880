"""Ledgers are identical across transports: in-process, MCP over stdio (MCP_ORACLE=1), and
MCP over Streamable HTTP (MCP_SERVERS=URL); through the Python API and the CLI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_helpers import stdio_oracle_servers, wait_gone

from workbench.engine.conductor import Conductor
from workbench.errors import ToolCallError
from workbench.tools.builtins import register_builtins
from workbench.tools.defaults import default_tool_registry
from workbench.tools.registry import ToolRegistry

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

TICKS = 20


def grove_hash(repo_root: Path, registry: ToolRegistry, progress=None) -> tuple[str, object]:
    conductor = Conductor.from_config(repo_root / "config", "oracle-grove",
                                      registry=registry, progress=progress)
    result = conductor.run(ticks=TICKS)
    return result.final_hash, result


@pytest.fixture(scope="module")
def in_process_hash(repo_root: Path) -> str:
    return grove_hash(repo_root, register_builtins(ToolRegistry()))[0]


class TestOracleGroveSameHash:
    def test_mcp_oracle_stdio_gives_the_in_process_hash_with_one_server(
            self, repo_root, in_process_hash, oracle_registry):
        connection = oracle_registry.resolver.connections[0]
        connects = connection.connects
        seen: list[set[int]] = []

        def watch(tick: int, total: int) -> None:
            seen.append(stdio_oracle_servers())

        final_hash, result = grove_hash(repo_root, oracle_registry, watch)
        assert final_hash == in_process_hash
        # One server process served every tick, on the session opened before the run.
        assert len(seen) == TICKS and len(set().union(*seen)) == 1
        assert connection.connects == connects == 1
        calls = [result.telemetry[e.seq] for e in result.ledger.of_kind("tool.called")]
        assert calls and {c["transport"] for c in calls} == {"stdio:workbench"}

    def test_streamable_http_gives_the_in_process_hash(
            self, repo_root, in_process_hash, http_oracle):
        registry = default_tool_registry({"MCP_SERVERS": http_oracle})
        try:
            final_hash, result = grove_hash(repo_root, registry)
        finally:
            registry.resolver.close()
        assert final_hash == in_process_hash
        transports = {result.telemetry[e.seq]["transport"]
                      for e in result.ledger.of_kind("tool.called")}
        assert transports == {f"http:{http_oracle.split('/')[2]}"}

    def test_the_cli_with_mcp_oracle_gives_the_same_hash_from_one_server_process(
            self, repo_root, in_process_hash, tmp_path):
        workbench = Path(sys.executable).parent / "workbench"
        assert workbench.exists(), "the console script is installed by `pip install -e .`"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
        env.update(MCP_ORACLE="1", WORKBENCH_MCP_LOG_DIR=str(tmp_path))
        out = subprocess.run([str(workbench), "run", "oracle-grove", "--ticks", str(TICKS)],
                             cwd=repo_root, env=env, capture_output=True, text=True,
                             timeout=90)
        assert out.returncode == 0, out.stderr
        assert re.search(r"final_hash=(\w+)", out.stdout).group(1) == in_process_hash
        # Every server start writes one line to its connection's log: exactly one start.
        starts = [line for log in tmp_path.glob("*.log") for line in log.read_text().splitlines()
                  if line.startswith("workbench mcp server pid")]
        assert len(starts) == 1, starts
        # ... and it is gone once the CLI has exited.
        assert wait_gone(int(starts[0].split()[4].rstrip(":")), timeout=2.0)


PRANKSTER = """\
name: prankster
role: worker
persona: Tests the oracle's patience.
may_emit: [prank.played]
schedule:
  tick_every: 1
model:
  backend: scripted
memory:
  window: 3
tools: [oracle]
script:
  - call: oracle
    params: {seed: 42}
    say: a number for a seed
  - call: oracle
    params: {seed: x, extra: true}
    say: one argument too many
  - call: oracle
    say: no arguments at all
  - call: echo
    params: {text: not mine}
    say: a tool I was never granted
  - call: oracle
    params: {seed: fine}
    say: a proper question
"""

PRANKS = """\
name: pranks
title: Pranks
goal: Bad arguments and an ungranted call, recorded the same on every transport.
genesis_text: "The prankster arrives (seed {seed})."
cast: [prankster]
governor:
  max_ticks: 5
"""


class TestBadCallsSameOutcome:
    @pytest.fixture
    def pranks_config(self, repo_root: Path, tmp_path: Path) -> Path:
        config = tmp_path / "config"
        shutil.copytree(repo_root / "config", config)
        (config / "agents" / "prankster.yaml").write_text(PRANKSTER)
        (config / "scenarios" / "pranks.yaml").write_text(PRANKS)
        return config

    def test_schema_violations_give_the_same_tool_called_outcome(self, oracle_registry):
        local = register_builtins(ToolRegistry())

        class Grants:
            tools = ("oracle",)

        for params in ({"seed": 42}, {"seed": "x", "extra": True}, {}, {"seed": None}):
            outcomes = []
            for registry in (local, oracle_registry):
                with pytest.raises(ToolCallError) as caught:
                    registry.call("prankster", Grants, "oracle", params)
                outcomes.append(caught.value.to_payload())
            assert outcomes[0] == outcomes[1]
            assert outcomes[0]["kind"] == "tool_error"

    def test_a_scripted_run_of_bad_calls_has_the_same_ledger(self, pranks_config,
                                                             oracle_registry):
        runs = {}
        for label, registry in (("in-process", register_builtins(ToolRegistry())),
                                ("mcp", oracle_registry)):
            conductor = Conductor.from_config(pranks_config, "pranks", registry=registry)
            runs[label] = conductor.run(ticks=5)
        local, remote = runs["in-process"], runs["mcp"]
        assert [e.payload for e in remote.ledger.events] == [
            e.payload for e in local.ledger.events]
        assert remote.final_hash == local.final_hash
        called = [e.payload for e in local.ledger.of_kind("tool.called")]
        assert [p.get("error", {}).get("kind") for p in called] == [
            "tool_error", "tool_error", "tool_error", None]
        assert [e.payload["reason"] for e in local.violations] == ["not granted"]
