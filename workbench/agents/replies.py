"""Reading a Chat Completions reply: decoded, checked field by field, capped, redacted.

A 200 from a model server promises nothing: the body may be truncated JSON, an HTML error
page, an event stream the request never asked for, a list, an ``error`` object, or a
message whose fields have the wrong types; it may ask for thousands of tool calls or
carry arguments megabytes long or nested past any schema. :func:`decode_reply` and
:func:`parse_reply` turn every such reply into one :class:`~workbench.errors.ModelError`
of kind ``model_error`` whose message names the field and what was wrong, so the turn
ends as ``agent.failed`` and the run goes on; nothing a server sends is a crash, and a
message with neither text nor tool calls is not taken for a silent turn.

The same checks read replies replayed from a cassette, so a hostile cassette fails the
same way a hostile server does. Secrets are redacted here, at the source (see
:mod:`workbench.agents.secrets`): the text, the tool names, the arguments *once parsed*
(a key spelt with JSON escapes is still the key) and the telemetry strings.

The caps (module constants) bound what one reply may ask of the run:

====================  =========  ================================================
constant              value      what it bounds
====================  =========  ================================================
``MAX_TOOL_CALLS``    128        tool calls read from one reply
``ARGUMENT_BYTES``    1 MiB      one call's arguments (UTF-8 bytes of the JSON text)
``ARGUMENT_DEPTH``    64         how deep one call's arguments nest
``REPLY_DEPTH``       80         how deep the whole reply nests
``FIELD_CHARS``       200        a telemetry string (model name, response id)
====================  =========  ================================================

The reply's size is bounded before it is read, on the wire
(:data:`workbench.agents.wire.REPLY_BYTES`).

Example:
    >>> reply = parse_reply({"choices": [{"message": {"content": "hi"}}]})
    >>> reply.text, reply.tool_calls
    ('hi', ())
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.agents.secrets import Redactor
from workbench.errors import ModelError
from workbench.textsafe import escape

__all__ = ["ARGUMENT_BYTES", "ARGUMENT_DEPTH", "FIELD_CHARS", "MAX_TOOL_CALLS",
           "REPLY_DEPTH", "ChatReply", "ChatToolCall", "as_recorded", "decode_reply", "depth",
           "kind_of", "parse_reply"]

#: Tool calls read from one reply: real models ask for a handful in parallel; past this a
#: reply is a flood, and each call is a registry call and a ledger event.
MAX_TOOL_CALLS = 128
#: Bytes of one call's arguments: room for a file's worth of text in a parameter, far
#: below what would make each ledger event and every later request carry megabytes.
ARGUMENT_BYTES = 1 << 20
#: Nesting of one call's arguments: tool schemas nest a few levels; deeper is a bomb
#: aimed at every recursive reader after this one (validation, canonical JSON, frames).
ARGUMENT_DEPTH = 64
#: Nesting of the whole reply: the envelope (about six levels) around arguments a server
#: sent as an object, which may nest to ARGUMENT_DEPTH themselves.
REPLY_DEPTH = ARGUMENT_DEPTH + 16
#: Characters kept of a telemetry string (model name, response id, finish reason): enough
#: for any real one; they go to the calls log, which is not the place for a reply's body.
FIELD_CHARS = 200
#: Characters of the server's own text quoted in a message (an error, a body's start).
_QUOTE = 120


@dataclass(frozen=True)
class ChatToolCall:
    """One tool call in a reply, as the server spelled it (``arguments`` is JSON text)."""

    id: str
    name: str
    arguments: str

    def parsed(self) -> dict[str, Any]:
        """The arguments as an object (``{}`` when empty).

        Raises:
            ValueError: they are not JSON, or not an object (the message says which).
        """
        try:
            value = json.loads(self.arguments) if self.arguments.strip() else {}
        except RecursionError:
            raise ValueError("nested too deep to read") from None
        if not isinstance(value, dict):
            raise ValueError(f"got {type(value).__name__}, not an object")
        return value

    def params(self) -> dict[str, Any]:
        """The arguments as an object: ``{}`` when they are empty, not JSON or not an object.

        For readers that only look (a trial's judge, a one-shot reply); the tool loop
        reports unreadable arguments to the model instead (:meth:`parsed`).
        """
        try:
            return self.parsed()
        except ValueError:
            return {}


@dataclass(frozen=True)
class ChatReply:
    """One model call's answer, parsed; only ``text`` and ``tool_calls`` reach the ledger.

    Attributes:
        text: The message content (None when the model only calls tools).
        tool_calls: The calls it asks for, in order.
        telemetry: Model name, latency, token usage, response id, source and attempts:
            for the calls log, never hashed.
    """

    text: str | None
    tool_calls: tuple[ChatToolCall, ...] = ()
    telemetry: dict[str, Any] = field(default_factory=dict, compare=False)


def _bad(problem: str) -> ModelError:
    return ModelError("model_error", problem)


def kind_of(value: Any) -> str:
    """How a JSON value is named in a message ("a string", "an object")."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), f"a {type(value).__name__}")


def _quote(text: str) -> str:
    """A short, escaped excerpt of server text, for a one-line message."""
    cut = text[:_QUOTE] + ("..." if len(text) > _QUOTE else "")
    return escape(cut)


def depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (a scalar is 0, ``[]`` is 1), counted up to ``limit + 1``.

    Walked with its own stack, and it stops as soon as ``limit`` is passed, so a hostile
    value costs at most one pass and never Python's recursion.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        if level > deepest:
            deepest = level
            if deepest > limit:
                return deepest
        stack.extend((child, level) for child in children if isinstance(child, dict | list))
    return deepest


def decode_reply(data: bytes, content_type: str | None = None) -> Any:
    """The JSON value of a 200's body.

    Raises:
        ModelError: empty, not UTF-8, an event stream, not JSON, or nested deeper
            than :data:`REPLY_DEPTH`.
    """
    kind = (content_type or "").split(";")[0].strip().lower()
    if not data.strip():
        raise _bad(f"the reply's body is empty ({kind or 'no content type'}); the server "
                   f"answered 200 with nothing to read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad(f"the reply is not UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                   f"{exc.start}); an OpenAI-compatible server sends UTF-8 JSON") from None
    start = text.lstrip()
    if kind == "text/event-stream" or start.startswith(("data:", "event:")):
        raise _bad("the reply is an event stream (SSE), but the request did not ask to "
                   "stream; the server ignored 'stream' (is it OpenAI-compatible?)")
    try:
        value = json.loads(text)
    except RecursionError:
        raise _bad(f"the reply is nested deeper than {REPLY_DEPTH} levels") from None
    except ValueError as exc:
        raise _bad(f"the reply is not JSON ({kind or 'no content type'}; {exc.msg} at "
                   f"offset {getattr(exc, 'pos', 0)}): it begins {_quote(start)!r}") from None
    if depth(value, REPLY_DEPTH) > REPLY_DEPTH:
        raise _bad(f"the reply is nested deeper than {REPLY_DEPTH} levels")
    return value


def parse_reply(response: Any, redact: Redactor | None = None,
                text_calls: str | None = None) -> ChatReply:
    """Read a Chat Completions response body (decoded JSON).

    Args:
        response: The body, as :func:`decode_reply` or a cassette gives it.
        redact: Secrets to take out of everything read (none when None).
        text_calls: A parser of :mod:`workbench.agents.text_calls` that reads tool calls
            the model wrote in its text, when the message has none of its own (None: the
            text is only text).

    Raises:
        ModelError: ``refusal`` when the model refused; ``model_error`` for a reply that
            is not a well-formed completion, naming the field at fault.
    """
    redact = redact or Redactor()
    if not isinstance(response, Mapping):
        raise _bad(f"the reply is {kind_of(response)}, not an object; an OpenAI-compatible "
                   f"server answers with a chat.completion object")
    error = response.get("error")
    if error:
        detail = error.get("message", "") if isinstance(error, Mapping) else error
        raise _bad(f"the server answered 200 with an error: "
                   f"{_quote(redact.text(str(detail or error)))}")
    choices = response.get("choices")
    if choices is not None and not isinstance(choices, list):
        raise _bad(f"choices is {kind_of(choices)}, not a list")
    if not choices:
        raise _bad("the reply has no choices; the server answered without a message "
                   "(is it an OpenAI-compatible chat endpoint?)")
    choice = choices[0]
    if not isinstance(choice, Mapping):
        raise _bad(f"choices[0] is {kind_of(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, Mapping):
        raise _bad(f"choices[0].message is {kind_of(message)}, not an object")
    refusal = _text_or_none(message, "refusal")
    if refusal:
        raise ModelError("refusal", f"the model refused: {redact.text(refusal)}")
    content = _text_or_none(message, "content")
    calls = _tool_calls(message.get("tool_calls"), redact)
    if text_calls is not None and not calls and content is not None:
        content, calls = _text_tool_calls(content, text_calls, redact)
    finish = _field(choice.get("finish_reason"), redact)
    if content is None and not calls:
        raise _bad(f"the reply's message has neither content nor tool calls "
                   f"(finish_reason {finish!r}); nothing to say and nothing to do")
    usage = response.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    return ChatReply(None if content is None else redact.text(content), calls, {
        "model": _field(response.get("model"), redact),
        "response_id": _field(response.get("id"), redact),
        "finish_reason": finish,
        "usage": {k: usage[k] for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                  if type(usage.get(k)) is int},
    })


def as_recorded(response: dict[str, Any], reply: ChatReply) -> dict[str, Any]:
    """``response`` with each tool call's arguments as :func:`parse_reply` read them.

    Arguments are JSON text inside the JSON body, so a secret spelt with escapes there
    survives redacting the body's strings; the arguments read (parsed, then redacted)
    replace it. ``response`` itself is returned when nothing differs.
    """
    raw = response["choices"][0]["message"].get("tool_calls")
    if not reply.tool_calls or not raw:  # none, or written in the text
        return response
    changed = [i for i, call in enumerate(reply.tool_calls)
               if isinstance(raw[i]["function"].get("arguments"), str)
               and raw[i]["function"]["arguments"] != call.arguments]
    if not changed:
        return response
    calls = list(raw)
    for i in changed:
        calls[i] = {**raw[i], "function": {**raw[i]["function"],
                                           "arguments": reply.tool_calls[i].arguments}}
    choice = response["choices"][0]
    message = {**choice["message"], "tool_calls": calls}
    return {**response, "choices": [{**choice, "message": message},
                                    *response["choices"][1:]]}


def _text_or_none(message: Mapping[str, Any], key: str) -> str | None:
    value = message.get(key)
    if value is not None and not isinstance(value, str):
        raise _bad(f"choices[0].message.{key} is {kind_of(value)}, not text or null")
    return value


def _field(value: Any, redact: Redactor) -> str | None:
    """A telemetry string as kept: text only, redacted, at most FIELD_CHARS."""
    return redact.text(value[:FIELD_CHARS]) if isinstance(value, str) else None


def _tool_calls(raw: Any, redact: Redactor) -> tuple[ChatToolCall, ...]:
    where = "choices[0].message.tool_calls"
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _bad(f"{where} is {kind_of(raw)}, not a list")
    if len(raw) > MAX_TOOL_CALLS:
        raise _bad(f"the reply asks for {len(raw)} tool calls; at most {MAX_TOOL_CALLS} "
                   f"are read from one reply")
    calls = []
    for i, call in enumerate(raw):
        if not isinstance(call, Mapping):
            raise _bad(f"{where}[{i}] is {kind_of(call)}, not an object")
        fn = call.get("function")
        if not isinstance(fn, Mapping):
            raise _bad(f"{where}[{i}].function is {kind_of(fn)}, not an object")
        name = fn.get("name")
        if not isinstance(name, str):
            raise _bad(f"{where}[{i}].function.name is {kind_of(name)}, not text")
        arguments = _arguments(fn.get("arguments"), f"{where}[{i}].function.arguments",
                               redact)
        ident = call.get("id")
        calls.append(ChatToolCall(ident if isinstance(ident, str) else "",
                                  redact.text(name), arguments))
    return tuple(calls)


def _text_tool_calls(content: str, parser: str, redact: Redactor
                     ) -> tuple[str | None, tuple[ChatToolCall, ...]]:
    """The calls written in ``content`` (see :mod:`~workbench.agents.text_calls`).

    They get ids of their own (``text-1``, ...) and the same checks as a server's calls.
    """
    from workbench.agents.text_calls import calls_in_text

    found, rest = calls_in_text(content, parser, MAX_TOOL_CALLS)
    if len(found) > MAX_TOOL_CALLS:
        raise _bad(f"the reply's text asks for more than {MAX_TOOL_CALLS} tool calls; at "
                   f"most {MAX_TOOL_CALLS} are read from one reply")
    where = "choices[0].message.content"
    calls = tuple(ChatToolCall(f"text-{i}", redact.text(name),
                               _arguments(arguments, f"{where} call {i}'s arguments", redact))
                  for i, (name, arguments) in enumerate(found, 1))
    return rest, calls


def _arguments(raw: Any, where: str, redact: Redactor) -> str:
    """A call's arguments as JSON text: checked against the caps, secrets taken out.

    Text that does not parse is passed on as it is: the tool loop reports it to the
    model as a ``tool_error`` it can correct.
    """
    if raw is None:
        raw = "{}"
    elif isinstance(raw, dict | list):  # some servers send an object, not JSON text
        raw = json.dumps(raw, ensure_ascii=False)
    elif not isinstance(raw, str):
        raise _bad(f"{where} is {kind_of(raw)}, not JSON text")
    size = len(raw) if len(raw) > ARGUMENT_BYTES else len(raw.encode("utf-8"))
    if size > ARGUMENT_BYTES:
        raise _bad(f"{where} are over {ARGUMENT_BYTES} bytes; a tool call's arguments "
                   f"are read up to {ARGUMENT_BYTES} bytes")
    try:
        parsed = json.loads(raw)
    except RecursionError:
        raise _bad(f"{where} are nested deeper than {ARGUMENT_DEPTH} levels") from None
    except ValueError:
        return redact.text(raw)
    if depth(parsed, ARGUMENT_DEPTH) > ARGUMENT_DEPTH:
        raise _bad(f"{where} are nested deeper than {ARGUMENT_DEPTH} levels")
    clean = redact.value(parsed)
    if clean is not parsed:  # a secret, perhaps spelt with escapes: say it masked
        raw = json.dumps(clean, ensure_ascii=False)
    return redact.text(raw)
