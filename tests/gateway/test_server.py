"""The gateway as an MCP server, driven by the ``mcp`` Python client as a host.

Each test starts ``workbench gateway`` as a subprocess over real test servers and talks to
it over stdio, on both protocol eras the SDK speaks: 2025-11-25 (``initialize``;
elicitation as a server request; ``list_changed`` as a notification) and 2026-07-28
(``server/discover``; elicitation by ``input_required`` and a retry).
"""

from __future__ import annotations

import contextlib
import sys
import time

import anyio
import pytest
from gateway_helpers import (
    FLAKY,
    HOSTILE_SURFACE,
    Host,
    gateway_argv,
    hostile,
    kinds,
    ledger_lines,
    wire_of,
    write_config,
)

from workbench.engine.ledger import JsonlLedgerStore

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture
def flaky_config(tmp_path):
    return write_config(tmp_path, servers=[{"name": "flaky", "command":
                                            f"{sys.executable} {FLAKY}"}],
                        grants=["echo", "whoami", "fail"])


class TestToolsList:
    def test_the_host_sees_the_granted_curated_tools_with_the_servers_schemas(self, tmp_path):
        config = write_config(tmp_path, servers=[{"name": "hostile",
                                                  "command": hostile("ok")}],
                              grants=["ok", "probe", "added"], surface=HOSTILE_SURFACE)
        host = Host(gateway_argv(config, tmp_path / "gw.jsonl"))

        async def main():
            async with host.session() as client:
                return [wire_of(t) for t in (await client.list_tools()).tools]

        tools = anyio.run(main)
        # whoami is offered but not granted; added is granted but not offered (yet).
        assert [t["name"] for t in tools] == ["ok", "probe"]
        ok = tools[0]
        assert ok["title"] == "Say it back"
        assert ok["description"] == ('Curated: return the text sent.\nExamples: '
                                     'ok({"text":"hello"})')
        assert ok["inputSchema"] == {"type": "object",
                                     "properties": {"text": {"type": "string"}}}
        assert "annotations" not in ok  # the server gave none, and none were invented


class TestApprovalThroughTheHost:
    @pytest.mark.parametrize("mode", ERAS)
    def test_the_person_approves_one_call_and_declines_another(self, flaky_config, tmp_path,
                                                                 mode):
        ledger = tmp_path / "gw.jsonl"
        host = Host(gateway_argv(flaky_config, ledger), mode=mode)
        host.answers = [True, "decline"]

        async def main():
            async with host.session() as client:
                yes = await client.call_tool("echo", {"text": "let me"})
                no = await client.call_tool("echo", {"text": "not me"})
                return yes, no

        yes, no = anyio.run(main)
        assert yes.is_error is False and yes.structured_content == {"text": "let me"}
        assert no.is_error is True and "not approved" in no.content[0].text
        assert len(host.asked) == 2
        assert "prober wants to call echo on server flaky" in host.asked[0]
        assert '{"text":"let me"}' in host.asked[0]
        events = ledger_lines(ledger)
        answers = [e["payload"] for e in events if e["kind"] == "approval.answered"]
        assert [(a["approved"], a["answer"], a["by"]) for a in answers] == [
            (True, "accept", "elicitation"), (False, "decline", "elicitation")]
        calls = [e for e in events if e["kind"] in ("tool.called", "tool.denied")]
        assert [(e["kind"], e["caused_by"]) for e in calls] == [
            ("tool.called", events.index(next(e for e in events
                                               if e["kind"] == "approval.answered"))),
            ("tool.denied", [e["seq"] for e in events if e["kind"] == "approval.answered"][1])]
        assert calls[1]["payload"]["reason"] == "not approved"

    def test_a_person_who_never_answers_is_a_no_once_the_wait_is_over(self, flaky_config,
                                                                       tmp_path, monkeypatch):
        ledger = tmp_path / "gw.jsonl"
        monkeypatch.setenv("WORKBENCH_GATEWAY_APPROVAL_TIMEOUT", "1")
        host = Host(gateway_argv(flaky_config, ledger))
        host.answers = ["away"]

        async def main():
            async with host.session() as client:
                started = time.monotonic()
                result = await client.call_tool("echo", {"text": "anyone?"})
                return result, time.monotonic() - started

        result, took = anyio.run(main)
        assert result.is_error and "not approved" in result.content[0].text
        assert took < 3 * 1 + 5
        answer = next(e for e in ledger_lines(ledger) if e["kind"] == "approval.answered")
        assert (answer["payload"]["approved"], answer["payload"]["answer"]) == (False,
                                                                                 "no answer")
        assert "within 1 s" in answer["payload"]["detail"]

    def test_a_call_cancelled_while_the_person_is_asked_is_refused_on_the_ledger(
            self, flaky_config, tmp_path):
        """The host gives up on a call whose approval is pending: the question is dropped,
        the call is refused and recorded as not answered (it left no record before), and
        the next call goes on at once."""
        ledger = tmp_path / "gw.jsonl"
        host = Host(gateway_argv(flaky_config, ledger))
        host.answers = ["away"]  # the person never answers

        async def main():
            async with host.session() as client:
                async with anyio.create_task_group() as calls:
                    calls.start_soon(client.call_tool, "echo", {"text": "still there?"})
                    with anyio.fail_after(60):
                        while not host.asked:  # the person is being asked: now give up
                            await anyio.sleep(0.05)
                    calls.cancel_scope.cancel()
                started = time.monotonic()
                result = await client.call_tool("whoami", {})  # needs approval: declined
                return result, time.monotonic() - started

        result, took = anyio.run(main)
        assert result.is_error  # the queued answer for whoami is "decline"
        assert took < 20, f"the next call took {took:.0f} s"  # not the 300 s approval wait
        # The two calls are concurrent in the gateway (the cancelled one unwinds in its
        # worker thread while the next is asked), so their events may come in either order:
        # each is found by its tool, and the refusal names the answer it rests on.
        events = ledger_lines(ledger)
        by_kind = {kind: {e["payload"]["tool"]: e for e in events if e["kind"] == kind}
                   for kind in ("tool.denied", "approval.answered")}
        assert sorted(by_kind["tool.denied"]) == ["echo", "whoami"]
        echo_answer = by_kind["approval.answered"]["echo"]
        assert echo_answer["payload"]["answer"] == "no answer"
        assert "cancelled" in echo_answer["payload"]["detail"]
        assert by_kind["tool.denied"]["echo"]["caused_by"] == echo_answer["seq"]
        assert by_kind["approval.answered"]["whoami"]["payload"]["answer"] == "decline"
        assert events[-1]["kind"] == "gateway.stopped"
        assert JsonlLedgerStore.verify(ledger).complete

    def test_a_host_that_cannot_ask_gets_a_refusal_on_the_ledger(self, flaky_config,
                                                                   tmp_path):
        ledger = tmp_path / "gw.jsonl"
        host = Host(gateway_argv(flaky_config, ledger), elicit=False)

        async def main():
            async with host.session() as client:
                return await client.call_tool("echo", {"text": "x"})

        result = anyio.run(main)
        assert result.is_error and "--approve" in result.content[0].text
        assert kinds(ledger) == ["gateway.started", "tool.denied", "gateway.stopped"]

    def test_approve_lets_the_call_through_and_records_who_said_yes(self, flaky_config,
                                                                      tmp_path):
        ledger = tmp_path / "gw.jsonl"
        host = Host(gateway_argv(flaky_config, ledger, "--approve", "echo"))

        async def main():
            async with host.session() as client:
                return await client.call_tool("echo", {"text": "x"})

        assert anyio.run(main).is_error is False
        assert host.asked == []
        answer = next(e for e in ledger_lines(ledger) if e["kind"] == "approval.answered")
        assert (answer["payload"]["by"], answer["payload"]["server"]) == ("--approve", "flaky")


class TestListChanged:
    @pytest.mark.parametrize("mode", ERAS)
    def test_the_host_is_told_when_what_it_sees_changes(self, tmp_path, mode):
        config = write_config(tmp_path, servers=[{"name": "hostile",
                                                  "command": hostile("rugpull")}],
                              grants=["ok", "probe", "added"], surface=HOSTILE_SURFACE)
        host = Host(gateway_argv(config, tmp_path / "gw.jsonl", "--approve", "*"), mode=mode)

        async def main():
            async with host.session() as client:
                before = [t.name for t in (await client.list_tools()).tools]
                told = anyio.Event()
                if mode == "legacy":
                    await client.call_tool("ok", {"text": "pull"})
                    with anyio.fail_after(15):
                        while host.notified == 0:
                            await anyio.sleep(0.05)
                else:
                    async with client.listen(tools_list_changed=True) as subscription:
                        await client.call_tool("ok", {"text": "pull"})
                        with anyio.fail_after(15):
                            async for _event in subscription:
                                told.set()
                                break
                after = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
                return before, after

        before, after = anyio.run(main)
        assert before == ["ok", "probe"]
        assert after == ["ok"]

    def test_churn_the_host_cannot_see_sends_it_nothing(self, tmp_path):
        # churn: 200 list_changed, each listing a new tool the surface does not list.
        config = write_config(tmp_path, servers=[{"name": "hostile",
                                                  "command": hostile("churn")}],
                              grants=["ok", "probe"], surface=HOSTILE_SURFACE)
        ledger = tmp_path / "gw.jsonl"
        host = Host(gateway_argv(config, ledger, "--approve", "*"))

        async def main():
            async with host.session() as client:
                await client.list_tools()
                result = await client.call_tool("probe", {})
                await anyio.sleep(1.5)  # several looks of the gateway's watcher
                return result

        assert anyio.run(main).is_error is False
        assert host.notified == 0
        changes = [e for e in ledger_lines(ledger) if e["kind"] == "tool.list_changed"]
        assert 1 <= len(changes) <= 10  # net changes, not one event per notification


class TestTheRecord:
    def test_kill_9_loses_no_call_that_reached_the_ledger(self, flaky_config, tmp_path):
        import os
        import signal

        ledger = tmp_path / "gw.jsonl"
        host = Host(gateway_argv(flaky_config, ledger, "--approve", "*"))
        answered: list[str] = []

        async def main():
            async with host.session() as client:
                async def calls():
                    for i in range(10_000):
                        try:
                            result = await client.call_tool("echo", {"text": f"call {i}"})
                        except Exception:  # the gateway is gone: the call in flight fails
                            return
                        answered.append(result.structured_content["text"])

                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(calls)
                    with anyio.fail_after(30):
                        while len(answered) < 20:
                            await anyio.sleep(0.01)
                    pid = _gateway_pid(ledger)
                    os.kill(pid, signal.SIGKILL)  # with a call in flight, most likely
                    with anyio.fail_after(10):
                        while _alive(pid):
                            await anyio.sleep(0.05)
                    tasks.cancel_scope.cancel()

        with contextlib.suppress(Exception):  # the host's session ends with the gateway
            anyio.run(main)
        check = JsonlLedgerStore.verify(ledger)
        assert check.torn is None
        recorded = [e["payload"]["params"]["text"] for e in ledger_lines(ledger)
                    if e["kind"] == "tool.called"]
        assert answered and recorded[:len(answered)] == answered
        assert kinds(ledger)[-1] != "gateway.stopped"  # it was killed, not stopped


def _gateway_pid(ledger) -> int:
    """The pid of the gateway writing ``ledger`` (it holds the file open)."""
    from pathlib import Path

    target = str(Path(ledger).resolve())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"gateway" in cmdline and target.encode() in cmdline:
            return int(proc.name)
    raise AssertionError("no gateway process found")


def _alive(pid: int) -> bool:
    from mcp_helpers import alive

    return alive(pid)
