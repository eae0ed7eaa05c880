"""The official MCP conformance suite against ``workbench gateway --http``.

``@modelcontextprotocol/conformance`` (npm, in external/, run on the Node 22 the ``node``
npm package brings: the suite does not start on Node 20) plays the client of each of its
server scenarios against a gateway on loopback. Every scenario that applies to a server
offering tools and nothing else passes. The others need what a gateway does not offer: the
reference server's fixture tools (``test_image_content``, ``test_tool_with_logging``,
``test_reconnection``, ...), resources, prompts, logging or completion.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
from gateway_helpers import FLAKY, REPO, gateway_argv, gateway_env, write_config
from mcp_helpers import free_port, wait_for_port

pytestmark = [pytest.mark.external, pytest.mark.slow]

NODE_MODULES = REPO / "external" / "node_modules"
SUITE = NODE_MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
NODE22 = NODE_MODULES / ".bin" / "node"

#: The server scenarios that apply to a tools-only server.
APPLIES = ["server-initialize", "ping", "tools-list", "tools-call-simple-text",
           "tools-call-error", "server-sse-multiple-streams", "dns-rebinding-protection"]
#: The others, and what each needs that the gateway does not offer.
DOES_NOT_APPLY = {
    "logging-set-level": "logging",
    "completion-complete": "completion",
    "tools-call-image": "the fixture tool test_image_content",
    "tools-call-audio": "the fixture tool test_audio_content",
    "tools-call-embedded-resource": "the fixture tool test_embedded_resource",
    "tools-call-mixed-content": "the fixture tool test_multiple_content_types",
    "tools-call-with-logging": "the fixture tool test_tool_with_logging",
    "tools-call-with-progress": "the fixture tool test_tool_with_progress",
    "tools-call-sampling": "the fixture tool test_sampling",
    "tools-call-elicitation": "the fixture tool test_elicitation",
    "elicitation-sep1034-defaults": "a fixture tool that elicits with defaults",
    "elicitation-sep1330-enums": "a fixture tool that elicits enums",
    "json-schema-2020-12": "a fixture tool with a 2020-12 schema",
    "server-sse-polling": "the fixture tool test_reconnection",
    "resources-list": "resources", "resources-read-text": "resources",
    "resources-read-binary": "resources", "resources-templates-read": "resources",
    "resources-subscribe": "resources", "resources-unsubscribe": "resources",
    "prompts-list": "prompts", "prompts-get-simple": "prompts",
    "prompts-get-with-args": "prompts", "prompts-get-embedded-resource": "prompts",
    "prompts-get-with-image": "prompts",
}


@pytest.fixture(scope="module")
def suite():
    assert SUITE.exists() and NODE22.exists(), (
        "the conformance suite is missing; run `make node` (cd external && npm install)")
    return [str(NODE22), str(SUITE)]


@pytest.fixture(scope="module")
def gateway_url(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("conformance")
    config = write_config(tmp, servers=[{"name": "flaky",
                                         "command": f"{sys.executable} {FLAKY}"}],
                          grants=["echo"])
    port = free_port()
    proc = subprocess.Popen([*gateway_argv(config, tmp / "gw.jsonl", "--approve", "echo"),
                             "--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=gateway_env())
    try:
        wait_for_port(port, proc, timeout=60)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def test_the_scenario_lists_cover_the_suite(suite):
    listed = subprocess.run([*suite, "list", "--server"], capture_output=True, text=True,
                            timeout=60, check=True).stdout
    names = {line.strip()[2:].split(" ")[0] for line in listed.splitlines()
             if line.strip().startswith("- ")}
    assert names == set(APPLIES) | set(DOES_NOT_APPLY)


@pytest.mark.parametrize("scenario", APPLIES)
def test_every_scenario_for_a_tools_server_passes(suite, gateway_url, tmp_path, scenario):
    subprocess.run([*suite, "server", "--url", gateway_url, "--scenario", scenario, "-o",
                    str(tmp_path)], capture_output=True, text=True, timeout=120)
    (found,) = tmp_path.glob(f"server-{scenario}-*/checks.json")
    checks = json.loads(found.read_text())
    verdicts = {check["status"] for check in checks}
    failed = [c for c in checks if c["status"] not in ("SUCCESS", "INFO")]
    assert "SUCCESS" in verdicts and not failed, failed
