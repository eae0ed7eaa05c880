"""A rug pull under a running gateway: the changed tool and the new one are neither shown
nor called, nothing reaches the server, and a person's approval in pins.json lets them in.

The hostile server's ``rugpull`` mode answers the first call after a ``tools/list_changed``
and from then on re-describes ``probe`` with an injection and offers ``added``, which the
surface lists (so a run would take it on trust the first time it saw it).
"""

from __future__ import annotations

import time

import pytest
from gateway_helpers import HOSTILE_SURFACE, hostile, write_config
from mcp_helpers import logged_requests

from workbench.contracts.surface import load_pins, save_pins
from workbench.gateway import Gateway
from workbench.surface.pins import pin

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

GRANTS = ["ok", "whoami", "probe", "added"]


def wait_for(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


@pytest.fixture
def pulled(tmp_path):
    """A gateway over the rugpull server, after its first call pulled the rug."""
    log = tmp_path / "hostile.log"
    config = write_config(tmp_path, servers=[{"name": "hostile",
                                              "command": hostile("rugpull", log)}],
                          grants=GRANTS, surface=HOSTILE_SURFACE)
    gateway = Gateway.open(config, "probe-house", "prober", ledger=tmp_path / "gw.jsonl",
                           approve=["*"], note=lambda line: None)
    try:
        before = gateway.contract.names()
        first = gateway.calls.call("ok", {"text": "first"})
        conn = gateway.contract.connections[0]
        wait_for(lambda: conn.list_changed_seen >= 1)
        changed = gateway.calls.relist()
        yield gateway, log, before, first, changed
    finally:
        gateway.close("test over")


class TestRugPull:
    def test_the_first_listing_shows_what_the_server_offered_then(self, pulled):
        _, _, before, first, _ = pulled
        assert before == ["ok", "whoami", "probe"]
        assert first.ok and first.result == {"text": "first"}

    def test_the_changed_and_the_new_tool_leave_the_list(self, pulled):
        gateway, _, _, _, changed = pulled
        assert changed is True
        assert gateway.contract.names() == ["ok", "whoami"]

    def test_calls_to_them_are_refused_as_drift_and_never_sent(self, pulled):
        gateway, log, _, _, _ = pulled
        probe = gateway.calls.call("probe", {})
        added = gateway.calls.call("added", {"text": "x"})
        assert (probe.outcome, probe.reason) == ("denied", "pin drift")
        assert (added.outcome, added.reason) == ("denied", "pin drift")
        assert "first offered 'added' after the gateway started" in added.message
        sent = [r["tool"] for r in logged_requests(log) if r["method"] == "tools/call"]
        assert sent == ["ok"]

    def test_the_list_change_is_recorded_with_the_audit_and_what_is_held(self, pulled):
        gateway, _, _, _, _ = pulled
        change = next(e for e in gateway.record.events if e.kind == "tool.list_changed")
        assert change.payload["added"] == ["added"]
        assert change.payload["changed"] == ["probe"]
        assert change.payload["held"] == ["added"]
        codes = {(f["tool"], f["code"]) for f in change.payload["findings"]}
        assert ("probe", "secret.file") in codes

    def test_a_pin_written_for_what_is_offered_now_lets_both_back(self, pulled, tmp_path):
        gateway, log, _, _, _ = pulled
        conn = gateway.contract.connections[0]
        surface = tmp_path / "config" / "surfaces" / "probe"
        # What `workbench surface approve` writes: the server's definition now, bound to it.
        pins = {p["name"]: p for p in load_pins(surface)}
        for name in ("probe", "added"):
            pins[name] = pin(conn.get_spec(name), conn.name)
        save_pins(surface, list(pins.values()))
        assert gateway.calls.relist() is True
        assert gateway.contract.names() == ["ok", "whoami", "probe", "added"]
        assert gateway.calls.call("added", {"text": "now"}).ok
        sent = [r["tool"] for r in logged_requests(log) if r["method"] == "tools/call"]
        assert sent == ["ok", "added"]

    def test_a_pin_for_something_else_changes_nothing(self, pulled, tmp_path):
        gateway, _, _, _, _ = pulled
        surface = tmp_path / "config" / "surfaces" / "probe"
        stale = {"name": "added", "server": "hostile", "fingerprint": "0" * 64,
                 "wire": {"name": "added", "description": "Something else."}}
        save_pins(surface, [*load_pins(surface), stale])
        gateway.calls.relist()
        assert "added" not in gateway.contract.names()
        assert gateway.calls.call("added", {"text": "x"}).reason == "pin drift"
