"""The model call's wire: a deadline for the whole request and a cap on the bytes read.

A server that trickles its answer a byte at a time never trips a per-read timeout, and
one that sends hundreds of megabytes would be buffered whole; both are real loopback
servers here, driven through a real run, and each failure is an ``agent.failed`` of the
first tick while the second tick goes ahead.
"""

from __future__ import annotations

import time

import pytest
from chat_server import Raw, completion, flood, trickle
from desk import write_desk

from workbench.agents.wire import REPLY_BYTES, REPLY_BYTES_ENV
from workbench.engine.conductor import Conductor


def run_desk(config_dir, registry, ticks=2, **kw):
    return Conductor.from_config(config_dir, "desk", registry=registry, **kw).run(ticks)


def failures(result):
    return [e.payload for e in result.ledger.of_kind("agent.failed")]


def spoke(result):
    return [e.payload["text"] for e in result.ledger.of_kind("clerk.said")]


@pytest.fixture
def warm():
    """The openai client imported before a test times anything (a slow import on a busy
    machine is not the deadline's doing)."""
    pytest.importorskip("openai")


@pytest.mark.usefixtures("warm")
class TestTrickledReply:
    @pytest.mark.parametrize("slow_head", [False, True], ids=["body", "headers-and-body"])
    def test_the_timeout_is_a_deadline_for_the_whole_request(
            self, config_dir, chat_server, desk_registry, api_key, slow_head):
        deadline = 1.0
        write_desk(config_dir, chat_server.url, timeout=deadline, max_retries=0)
        # About 300 bytes at 10 a second: 30 s if read to the end, each read well inside
        # the per-read timeout.
        chat_server.script.append(trickle(completion("at last"), 0.1, slow_head=slow_head))
        started = time.monotonic()
        result = run_desk(config_dir, desk_registry)
        elapsed = time.monotonic() - started
        (failed,) = failures(result)
        assert failed["kind"] == "timeout" and "within 1 s" in failed["message"]
        assert "whole request" in failed["message"]
        assert elapsed < 3 * deadline + 4  # the deadline, not the trickle; then tick 2
        assert spoke(result) == ["The omen is read; the vault stayed shut."]

    def test_a_retried_call_still_ends_at_its_deadline(self, config_dir, chat_server, desk_registry,
                                               api_key):
        from chat_server import Fault

        write_desk(config_dir, chat_server.url, timeout=1, max_retries=1)
        chat_server.script.extend([Fault(503), trickle(completion("late"), 0.1)])
        started = time.monotonic()
        result = run_desk(config_dir, desk_registry, ticks=1)
        assert time.monotonic() - started < 3 * 2 + 2  # one deadline, then the trickle's 30 s
        (failed,) = failures(result)
        assert failed["kind"] == "timeout"
        assert result.model_calls == []  # the turn never got a reply


class TestFloodedReply:
    def test_a_300_mb_reply_is_refused_after_reading_at_most_the_cap(
            self, config_dir, chat_server, desk_registry, api_key):
        write_desk(config_dir, chat_server.url, max_retries=0)
        chat_server.script.append(flood(300 << 20))
        result = run_desk(config_dir, desk_registry)
        (failed,) = failures(result)
        assert failed["kind"] == "model_error"
        assert f"over {REPLY_BYTES} bytes" in failed["message"]
        assert REPLY_BYTES_ENV in failed["message"]
        # The server got the cap, and what the socket buffers held, onto the wire.
        assert chat_server.sent[0] < REPLY_BYTES + (32 << 20)
        assert spoke(result) == ["The omen is read; the vault stayed shut."]

    def test_a_reply_without_a_length_is_capped_too(self, config_dir, chat_server,
                                                    desk_registry, api_key, monkeypatch):
        monkeypatch.setenv(REPLY_BYTES_ENV, str(64 << 10))
        write_desk(config_dir, chat_server.url, max_retries=0)
        chat_server.script.append(Raw(flood(4 << 20).chunks))  # close-delimited
        result = run_desk(config_dir, desk_registry)
        (failed,) = failures(result)
        assert failed["kind"] == "model_error" and f"over {64 << 10} bytes" in \
            failed["message"]
        assert spoke(result) == ["The omen is read; the vault stayed shut."]

    def test_the_cap_is_set_from_the_environment(self, config_dir, chat_server,
                                                 desk_registry, api_key, monkeypatch):
        monkeypatch.setenv(REPLY_BYTES_ENV, "4096")
        write_desk(config_dir, chat_server.url, max_retries=0)
        chat_server.script.append(completion("x" * 8192))
        result = run_desk(config_dir, desk_registry, ticks=1)
        (failed,) = failures(result)
        assert "over 4096 bytes" in failed["message"]
        monkeypatch.setenv(REPLY_BYTES_ENV, "a lot")
        from workbench.errors import ConfigError

        with pytest.raises(ConfigError, match=REPLY_BYTES_ENV):
            run_desk(config_dir, desk_registry, ticks=1)

    def test_an_error_body_is_capped_as_well(self, config_dir, chat_server, desk_registry,
                                             api_key):
        write_desk(config_dir, chat_server.url, max_retries=0)
        flooded = flood(64 << 20)
        chat_server.script.append(Raw(flooded.chunks, status=500, length=flooded.length))
        result = run_desk(config_dir, desk_registry)
        (failed,) = failures(result)
        assert failed["kind"] == "model_error" and f"over {REPLY_BYTES} bytes" in \
            failed["message"]
        assert chat_server.sent[0] < REPLY_BYTES + (32 << 20)
