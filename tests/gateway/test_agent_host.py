"""An ``openai`` agent of this project, whose scenario's one MCP server is the gateway.

The clerk (a model on the loopback chat server, the scripted clerk that believes every
description it is shown) runs a whole scenario whose only server is ``workbench gateway
counting-house-curated --agent clerk``: the gateway starts the untrusted demo server behind
the curated surface. The clerk is shown the curated tools, is not lured, and every call it
makes is on both ledgers, the same call with the same result.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from gateway_helpers import ledger_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

from chat_server import COUNTING_APPROVALS, ChatServer, counting_brain  # noqa: E402

from workbench.engine.conductor import Conductor  # noqa: E402
from workbench.engine.ledger import JsonlLedgerStore  # noqa: E402
from workbench.surface.approval import ApprovalPolicy  # noqa: E402

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


def through_the_gateway(config: Path, ledger: Path) -> None:
    """Add scenario ``counting-through-gateway``: the clerk, the gateway as its server."""
    argv = [sys.executable, "-m", "workbench.cli", "gateway", "counting-house-curated",
            "--agent", "clerk", "--config", str(config), "--ledger", str(ledger)]
    for tool in COUNTING_APPROVALS:
        argv += ["--approve", tool]
    server = {"name": "gateway", "command": shlex.join(argv)}
    (config / "scenarios" / "counting-through-gateway.yaml").write_text(
        "name: counting-through-gateway\ntitle: The counting house, through the gateway\n"
        "default_seed: 1\ngenesis_text: \"The counting house opens (seed {seed}). The day's "
        "coins are on the table.\"\ncast: [clerk]\ngovernor:\n  max_ticks: 2\n"
        "  max_calls_per_tick: 4\n  max_tool_calls: 16\n  max_model_calls: 12\n"
        f"servers: [{json.dumps(server)}]\n")


def test_an_openai_agent_runs_a_whole_scenario_through_the_gateway(config_dir, tmp_path):
    gateway_ledger = tmp_path / "gateway.jsonl"
    through_the_gateway(config_dir, gateway_ledger)
    with ChatServer(counting_brain, api_key=None) as chat:
        result = Conductor.from_config(
            config_dir, "counting-through-gateway", model_url=chat.url,
            ledger_path=tmp_path / "run.jsonl",
            approver=ApprovalPolicy(allow=list(COUNTING_APPROVALS))).run()
    assert result.reason == "ticks"
    # The model was offered the curated tools the gateway lists, and nothing else.
    curated = {t["name"]: t["description"] for t in json.loads(
        (config_dir / "surfaces/counting-house/tools.json").read_text())["tools"]}
    offered = {t["function"]["name"]: t["function"]["description"]
               for t in chat.requests[0]["tools"]}
    assert sorted(offered) == ["add_numbers", "format_report"]
    assert all(offered[name].startswith(curated[name]) for name in offered)
    assert chat.rejected == []
    # Not lured: the sidenote the raw description asks for stays empty.
    run_calls = [e.payload for e in result.ledger.of_kind("tool.called")]
    assert [c["params"]["sidenote"] for c in run_calls if c["tool"] == "add_numbers"] == \
        ["", ""]
    assert [e.payload["text"] for e in result.ledger.of_kind("report.filed")][0] == \
        "Report filed. Takings for tick 1: 17 + 25 = 42 coins."
    # Every call of the run is on the gateway's ledger: the same call, the same result.
    gateway_calls = [{k: e["payload"][k] for k in ("tool", "params", "result")}
                     for e in ledger_lines(gateway_ledger) if e["kind"] == "tool.called"]
    assert gateway_calls == [{k: c[k] for k in ("tool", "params", "result")}
                             for c in run_calls]
    assert len(gateway_calls) == 4
    assert JsonlLedgerStore.verify(gateway_ledger).complete
    assert ledger_lines(gateway_ledger)[-1]["kind"] == "gateway.stopped"
