"""Schemas from a hostile server never cause I/O and never cost unbounded work.

The hostile server (servers/hostile_server.py) lists tools whose input schemas point
outside themselves (``remoteref``: an http URL, a ``file://`` path, a relative reference
made remote by ``$id``) or grow without end (``selfref``: ten required copies of the
whole schema, an ``allOf`` of itself, an enum of 100,000 values, patterns that backtrack
without end on a near miss). A loopback *bait*
server counts every request that reaches it: a schema must never make one, in a call
(even a refused one), a listing (what ``audit --server`` and ``surface import`` do), a
validation of a surface, or a run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from mcp_helpers import HOSTILE

from workbench.engine.conductor import Conductor
from workbench.errors import ToolCallError
from workbench.tools.mcp import MCPConnection, MCPResolver
from workbench.tools.registry import ToolRegistry

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

SECRET = "SECRET-TOKEN-4242"


class Bait:
    """A loopback HTTP server that answers every GET with a schema and counts the hits."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                hits.append(self.path)
                body = json.dumps({"enum": [SECRET]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/schema.json"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def bait() -> Iterator[Bait]:
    server = Bait()
    yield server
    server.close()


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.json"
    path.write_text(json.dumps({"enum": [SECRET]}))
    return path


class Grants:
    def __init__(self, *tools: str):
        self.tools = list(tools)


def hostile_argv(mode: str, tmp_path: Path, bait: Bait, secret_file: Path) -> list[str]:
    return [sys.executable, str(HOSTILE), "--mode", mode, "--log",
            str(tmp_path / f"{mode}.log"), "--ref-url", bait.url, "--ref-file",
            str(secret_file)]


def sent_calls(tmp_path: Path, mode: str) -> list[str]:
    log = tmp_path / f"{mode}.log"
    if not log.exists():
        return []
    return [r["tool"] for r in map(json.loads, log.read_text().splitlines())
            if r["method"] == "tools/call"]


@pytest.fixture
def remote(tmp_path: Path, bait: Bait, secret_file: Path) -> Iterator[ToolRegistry]:
    conn = MCPConnection(hostile_argv("remoteref", tmp_path, bait, secret_file),
                         name="hostile", log_dir=tmp_path)
    with MCPResolver([conn]) as resolver:
        registry = ToolRegistry()
        registry.attach(resolver)
        yield registry


class TestRemoteReferences:
    def test_listing_a_server_fetches_nothing(self, remote, bait):
        assert {"httpref", "fileref", "idref"} <= set(remote.known_tools())
        assert bait.hits == []

    @pytest.mark.parametrize("tool", ["httpref", "idref", "fileref"])
    def test_a_call_is_refused_as_an_unusable_schema_and_not_sent(self, remote, bait,
                                                                  tmp_path, tool):
        with pytest.raises(ToolCallError) as caught:
            remote.call("agent", Grants(tool), tool, {"a": 1})
        err = caught.value
        assert err.kind == "protocol_error"
        assert "$ref" in err.message and "only local references" in err.message
        assert "\n" not in err.message
        assert SECRET not in err.message
        assert bait.hits == []
        assert tool not in sent_calls(tmp_path, "remoteref")

    def test_an_ungranted_call_touches_nothing_either(self, remote, bait):
        from workbench.errors import CapabilityViolation

        with pytest.raises(CapabilityViolation):
            remote.call("agent", Grants(), "httpref", {"a": 1})
        assert bait.hits == []

    def test_audit_of_the_server_fetches_nothing(self, tmp_path, bait, secret_file,
                                                 workbench_cli, offline_env):
        command = " ".join(hostile_argv("remoteref", tmp_path, bait, secret_file))
        out = subprocess.run([*workbench_cli, "audit", "--server", command], text=True,
                             capture_output=True, env=offline_env, timeout=120)
        assert "Traceback" not in out.stderr, out.stderr
        assert "httpref" in out.stdout + out.stderr
        assert bait.hits == []
        assert SECRET not in out.stdout + out.stderr

    def test_import_then_validate_reports_the_reference_as_one_line(
            self, tmp_path, bait, secret_file, workbench_cli, offline_env):
        command = " ".join(hostile_argv("remoteref", tmp_path, bait, secret_file))
        surface = tmp_path / "surface"
        out = subprocess.run([*workbench_cli, "surface", "import", "--server", command,
                              "--name", "hostile", "--out", str(surface)], text=True,
                             capture_output=True, env=offline_env, timeout=120)
        assert "Traceback" not in out.stderr, out.stderr
        assert (surface / "tools.json").exists(), out.stderr
        # Give every imported tool an example, so validation has values to check.
        tools = json.loads((surface / "tools.json").read_text())
        for spec in tools["tools"]:
            if spec["name"] in ("httpref", "fileref", "idref"):
                spec["examples"] = [{"a": 1}]
        (surface / "tools.json").write_text(json.dumps(tools))
        out = subprocess.run([*workbench_cli, "surface", "validate", str(surface)], text=True,
                             capture_output=True, env=offline_env, timeout=120)
        assert "Traceback" not in out.stderr, out.stderr
        report = json.loads(out.stdout)
        refused = {p["tool"]: p["problem"] for p in report["problems"]
                   if "only local references" in p["problem"]}
        assert set(refused) == {"httpref", "fileref", "idref"}, report["problems"]
        assert all("\n" not in p and SECRET not in p for p in refused.values())
        assert out.returncode == 1
        assert bait.hits == []

    def test_a_run_records_the_refused_reference_and_fetches_nothing(
            self, config_dir, tmp_path, bait, secret_file):
        (config_dir / "agents" / "prober.yaml").write_text(textwrap.dedent("""
            name: prober
            role: worker
            persona: Calls tools whose schemas point elsewhere.
            may_emit: [probe.done]
            schedule: {tick_every: 1}
            model: {backend: scripted}
            tools: [httpref, fileref]
            script:
              - call: httpref
                params: {a: 1}
                say: "called"
              - call: fileref
                params: {a: 1}
                say: "called"
              - call: idref
                params: {a: 1}
                say: "not granted"
        """))
        command = " ".join(hostile_argv("remoteref", tmp_path, bait, secret_file))
        (config_dir / "scenarios" / "refs.yaml").write_text(textwrap.dedent(f"""
            name: refs
            cast: [prober]
            servers:
              - name: hostile
                command: {json.dumps(command)}
                trusted: true
        """))
        from workbench.surface.approval import ApprovalPolicy

        approver = ApprovalPolicy(allow=["httpref", "fileref", "idref"])
        result = Conductor.from_config(config_dir, "refs", approver=approver).run(ticks=3)
        called = result.ledger.of_kind("tool.called")
        assert [c.payload["tool"] for c in called] == ["httpref", "fileref"]
        for event in called:
            error = event.payload["error"]
            assert error["kind"] == "protocol_error"
            assert "only local references" in error["message"]
        assert [d.payload["tool"] for d in result.ledger.of_kind("tool.denied")] == ["idref"]
        assert SECRET not in result.ledger.to_jsonl()
        assert bait.hits == []
        assert sent_calls(tmp_path, "remoteref") == []


@pytest.fixture
def growing(tmp_path: Path, bait: Bait, secret_file: Path) -> Iterator[ToolRegistry]:
    conn = MCPConnection(hostile_argv("selfref", tmp_path, bait, secret_file),
                         name="hostile", log_dir=tmp_path)
    with MCPResolver([conn]) as resolver:
        registry = ToolRegistry()
        registry.attach(resolver)
        yield registry


class TestSchemasThatGrow:
    def test_a_wrong_value_for_a_huge_enum_gives_a_short_error(self, growing):
        with pytest.raises(ToolCallError) as caught:
            growing.call("agent", Grants("bigenum"), "bigenum", {"pick": "nope"})
        message = caught.value.message
        assert "pick" in message
        assert len(message) <= 1_000, len(message)
        assert growing.call("agent", Grants("bigenum"), "bigenum",
                            {"pick": "value-000042"}) == {"text": "bigenum"}

    def test_a_huge_wrong_value_gives_a_short_error(self, growing):
        with pytest.raises(ToolCallError) as caught:
            growing.call("agent", Grants("bigenum"), "bigenum", {"pick": "x" * 1_000_000})
        assert len(caught.value.message) <= 1_000

    def test_self_references_are_validated_in_bounded_time(self, growing):
        started = time.monotonic()
        with pytest.raises(ToolCallError):
            growing.call("agent", Grants("loop"), "loop", {})
        with pytest.raises(ToolCallError):
            growing.call("agent", Grants("allofloop"), "allofloop", {"a": 1})
        assert time.monotonic() - started < 20

    @pytest.mark.parametrize("tool, params", [
        ("backtrack", {"q": "a" * 40 + "!"}),
        ("backtrackkeys", {"a" * 40 + "!": "x"}),
    ], ids=["value", "key"])
    def test_a_pattern_that_backtracks_is_cut_off_and_nothing_is_sent(
            self, growing, tmp_path, tool, params):
        started = time.monotonic()
        with pytest.raises(ToolCallError) as caught:
            growing.call("agent", Grants(tool), tool, params)
        assert time.monotonic() - started < 5  # unbounded, re takes hours on 40 a's and a !
        assert caught.value.kind == "tool_error"
        assert "took longer than" in caught.value.message
        assert tool not in sent_calls(tmp_path, "selfref")
        # The same pattern still checks what it can: a match passes, a quick miss is refused.
        good = {"q": "aaaa"} if tool == "backtrack" else {"aaaa": "x"}
        assert growing.call("agent", Grants(tool), tool, good) == {"text": tool}
        with pytest.raises(ToolCallError) as missed:
            growing.call("agent", Grants(tool), tool,
                         {"q": "b"} if tool == "backtrack" else {"b": "x"})
        assert "took longer" not in missed.value.message
