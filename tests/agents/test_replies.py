"""Malformed and oversized 200 replies, each one ``model_error`` through a real run.

Every case is a loopback server answering the clerk's first call of tick 1 with something
no honest Chat Completions server sends; tick 2 is answered by the desk brain, so each
test also shows the run going on.
"""

from __future__ import annotations

import json

import pytest
from chat_server import Raw, completion
from desk import write_desk

from workbench.agents.replies import ARGUMENT_BYTES, ARGUMENT_DEPTH, MAX_TOOL_CALLS
from workbench.engine.conductor import Conductor


def run_desk(config_dir, registry, ticks=2, **kw):
    return Conductor.from_config(config_dir, "desk", registry=registry, **kw).run(ticks)


def failures(result):
    return [e.payload for e in result.ledger.of_kind("agent.failed")]


def message_with(**fields):
    """A completion whose message has ``fields`` set as given (whatever their type)."""
    body = completion("placeholder")
    body["choices"][0]["message"].update(fields)
    return body


def call_with(function=None, **entry):
    """A completion with one tool call whose entry and function are as given."""
    call = {"id": "call_1", "type": "function",
            "function": {"name": "oracle", "arguments": "{}"} if function is None else function,
            **entry}
    return message_with(content=None, tool_calls=[call])


def nested(depth):
    return "[" * depth + "]" * depth


SSE = (b'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,'
       b'"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n')

#: (id, the answer, what the model_error must name)
MALFORMED = [
    ("truncated-json", Raw(b'{"choices": [{"message": {"content": "hal'), "not JSON"),
    ("html-page", Raw(b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>",
                      content_type="text/html"), "text/html"),
    ("sse-stream", Raw(SSE, content_type="text/event-stream"), "event stream"),
    ("sse-as-json", Raw(SSE), "event stream"),
    ("not-utf8", Raw(b'{"choices": [{"message": {"content": "\xff\xfe"}}]}'), "UTF-8"),
    ("empty-body", Raw(b""), "empty"),
    ("top-level-list", [completion("hi")], "a list, not an object"),
    ("top-level-string", "hello", "a string, not an object"),
    ("200-with-error", {"error": {"message": "the model is overloaded", "type": "server"}},
     "the model is overloaded"),
    ("200-with-error-string", {"error": "quota exceeded"}, "quota exceeded"),
    ("choices-an-object", {"choices": {"0": {"message": {"content": "hi"}}}}, "choices"),
    ("choice-a-string", {"choices": ["hi"]}, "choices[0]"),
    ("message-a-string", {"choices": [{"message": "hi"}]}, "message"),
    ("tool-calls-a-string", message_with(content=None, tool_calls="oracle"), "tool_calls"),
    ("tool-call-a-string", message_with(content=None, tool_calls=["oracle"]), "tool_calls[0]"),
    ("function-a-string", call_with(function="oracle"), "function"),
    ("name-a-number", call_with(function={"name": 7, "arguments": "{}"}), "name"),
    ("arguments-a-number", call_with(function={"name": "oracle", "arguments": 7}),
     "arguments"),
    ("content-an-object", message_with(content={"text": "hi"}), "content"),
    ("content-a-list", message_with(content=["hi"]), "content"),
    ("refusal-an-object", message_with(refusal={"why": "no"}), "refusal"),
    ("empty-message", message_with(content=None), "neither content nor tool calls"),
    ("nested-envelope", Raw(nested(100_000).encode()), "nested"),
    ("too-many-calls", completion(None, [("oracle", {"seed": str(i)}) for i in range(2000)]),
     f"2000 tool calls; at most {MAX_TOOL_CALLS}"),
    ("arguments-too-long", completion(None, [("oracle", {"seed": "x" * (2 << 20)})]),
     f"{ARGUMENT_BYTES} bytes"),
    ("arguments-nested-deep", completion(None, [("oracle", nested(100_000))]),
     f"nested deeper than {ARGUMENT_DEPTH}"),
    ("arguments-one-too-deep", completion(None, [("oracle", nested(ARGUMENT_DEPTH + 1))]),
     f"nested deeper than {ARGUMENT_DEPTH}"),
]


class TestMalformedReplies:
    @pytest.mark.parametrize("answer,named", [m[1:] for m in MALFORMED],
                             ids=[m[0] for m in MALFORMED])
    def test_each_is_one_model_error_naming_it_and_the_run_goes_on(
            self, config_dir, chat_server, desk_registry, api_key, answer, named):
        write_desk(config_dir, chat_server.url, max_retries=0)
        chat_server.script.append(answer)
        result = run_desk(config_dir, desk_registry)
        (failed,) = failures(result)
        assert failed["error"] == "ModelError" and failed["kind"] == "model_error"
        assert named in failed["message"]
        assert "\n" not in failed["message"] and len(failed["message"]) < 400
        assert result.ticks == 2
        said = [e.payload["text"] for e in result.ledger.of_kind("clerk.said")]
        assert said == ["The omen is read; the vault stayed shut."]  # tick 2 went ahead


class TestWhatIsStillAccepted:
    def test_arguments_nested_to_the_cap_are_called(self, config_dir, chat_server,
                                                    desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        deep = {"seed": "x"}
        for _ in range(ARGUMENT_DEPTH - 1):
            deep = {"seed": "x", "more": deep}
        chat_server.script.append(completion(None, [("oracle", deep)]))
        result = run_desk(config_dir, desk_registry, ticks=1)
        assert failures(result) == []
        (called,) = result.ledger.of_kind("tool.called")
        assert called.payload["tool"] == "oracle"  # the schema judges it, not the reader

    def test_arguments_as_an_object_and_odd_usage_are_tolerated(self, config_dir, chat_server,
                                                               desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        reply = call_with(function={"name": "oracle", "arguments": {"seed": "obj"}})
        reply["usage"] = "plenty"
        reply["model"] = {"not": "a name"}
        chat_server.script.append(reply)
        result = run_desk(config_dir, desk_registry, ticks=1)
        assert failures(result) == []
        assert result.ledger.of_kind("tool.called")[0].payload["params"] == {"seed": "obj"}
        first = result.model_calls[0]
        assert first["usage"] == {} and first["model"] is None

    def test_an_empty_string_is_something_said(self, config_dir, chat_server, desk_registry,
                                               api_key):
        write_desk(config_dir, chat_server.url)
        chat_server.script.append(completion(""))
        result = run_desk(config_dir, desk_registry, ticks=1)
        assert failures(result) == []
        assert [e.payload["text"] for e in result.ledger.of_kind("clerk.said")] == [""]

    def test_invalid_json_arguments_stay_a_tool_error_fed_back(self, config_dir, chat_server,
                                                               desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        chat_server.script.append(completion(None, [("oracle", "[1, 2")]))
        result = run_desk(config_dir, desk_registry, ticks=1)
        assert failures(result) == []
        called = result.ledger.of_kind("tool.called")[0].payload
        assert called["error"]["kind"] == "tool_error"
        fed_back = json.loads(chat_server.requests[1]["messages"][-1]["content"])
        assert "not a JSON object" in fed_back["error"]["message"]
