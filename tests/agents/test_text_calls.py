"""Tool calls a model writes in its text: read only when a parser is chosen, and checked."""

from __future__ import annotations

import json

import pytest

from workbench.agents.replies import ARGUMENT_BYTES, MAX_TOOL_CALLS, parse_reply
from workbench.agents.secrets import Redactor
from workbench.agents.text_calls import calls_in_text
from workbench.errors import ModelError


def reply(content):
    return {"choices": [{"message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}]}


ADD = '{"name": "add_numbers", "arguments": {"a": 2, "b": 3, "sidenote": ""}}'


class TestForms:
    @pytest.mark.parametrize("content", [
        ADD,
        f"<tool_call>\n{ADD}\n</tool_call>",
        f"```json\n{ADD}\n```",
        f"```\n{ADD}\n```",
        f"  {ADD}\n",
        f"[{ADD}]",
    ])
    def test_each_common_form_is_one_call(self, content):
        got = parse_reply(reply(content), text_calls="json")
        assert [(c.id, c.name, json.loads(c.arguments)) for c in got.tool_calls] == \
            [("text-1", "add_numbers", {"a": 2, "b": 3, "sidenote": ""})]
        assert got.text is None

    def test_hermes_blocks_keep_the_words_around_them_as_text(self):
        content = (f"I will add them.\n<tool_call>{ADD}</tool_call>\n"
                   '<tool_call>{"name": "format_report", "parameters": {"report": "5"}}'
                   "</tool_call>")
        got = parse_reply(reply(content), text_calls="json")
        assert [c.name for c in got.tool_calls] == ["add_numbers", "format_report"]
        assert json.loads(got.tool_calls[1].arguments) == {"report": "5"}
        assert got.text == "I will add them."

    def test_arguments_given_as_json_text_are_read_too(self):
        content = json.dumps({"name": "echo", "arguments": json.dumps({"message": "hi"})})
        (call,) = parse_reply(reply(content), text_calls="json").tool_calls
        assert json.loads(call.arguments) == {"message": "hi"}


class TestNotACall:
    @pytest.mark.parametrize("content", [
        "The sum is 5.",
        '{"sum": 5}',                                   # data, no name
        '{"name": "Ada", "age": 36}',                  # a name, but a record, not a call
        '{"name": "add_numbers", "arguments": [1, 2]}',  # arguments not an object
        "Here is JSON: " + ADD,                         # prose around a bare object
        "<tool_call>not json</tool_call>",
        f"<tool_call>{ADD}</tool_call><tool_call>oops</tool_call>",  # one bad block
        "{" * 100_000,                                  # a nesting bomb stays text
    ])
    def test_text_that_writes_no_call_stays_text(self, content):
        got = parse_reply(reply(content), text_calls="json")
        assert got.tool_calls == () and got.text == content

    def test_without_a_parser_a_call_in_text_is_only_text(self):
        got = parse_reply(reply(ADD))
        assert got.tool_calls == () and got.text == ADD

    def test_native_tool_calls_win_over_text(self):
        body = reply("<tool_call>" + ADD + "</tool_call>")
        body["choices"][0]["message"]["tool_calls"] = [
            {"id": "x", "type": "function",
             "function": {"name": "echo", "arguments": "{}"}}]
        got = parse_reply(body, text_calls="json")
        assert [c.name for c in got.tool_calls] == ["echo"]


class TestBounds:
    def test_too_many_calls_in_text_are_refused_as_a_model_error(self):
        content = "".join(f"<tool_call>{ADD}</tool_call>" for _ in range(MAX_TOOL_CALLS + 5))
        with pytest.raises(ModelError, match=f"more than {MAX_TOOL_CALLS} tool calls"):
            parse_reply(reply(content), text_calls="json")

    def test_arguments_past_the_cap_are_refused_as_a_server_call_would_be(self):
        big = json.dumps({"name": "echo", "arguments": {"m": "x" * (ARGUMENT_BYTES + 1)}})
        with pytest.raises(ModelError, match="over 1048576 bytes"):
            parse_reply(reply(big), text_calls="json")

    def test_a_secret_in_text_arguments_is_redacted(self):
        content = json.dumps({"name": "echo", "arguments": {"m": "sk-abc123secret"}})
        (call,) = parse_reply(reply(content), Redactor(["sk-abc123secret"]),
                              text_calls="json").tool_calls
        assert "sk-abc123secret" not in call.arguments

    def test_an_unknown_parser_is_named(self):
        with pytest.raises(ValueError, match="allowed: json"):
            calls_in_text(ADD, "yaml", 8)
