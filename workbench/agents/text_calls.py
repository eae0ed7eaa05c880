"""Tool calls a model writes as text: read, opt-in, from a reply's ``content``.

Small local models served through an OpenAI-compatible server often answer a tool call
with JSON in the message's text and ``tool_calls`` empty: the server's chat template told
the model how to write a call, and the server does not parse it back. Qwen's own template
asks for ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``; others write the
bare object, a list of them, or the object inside a Markdown code fence.

A parser is chosen per model (``model.tool_calls_in_text`` in a manifest, or recorded in
a cassette's provenance), never guessed from a reply: a model that merely *talks about*
JSON must not have its words taken for a call. :data:`PARSERS` lists the parsers.

``json`` reads, in one linear pass, either

* every ``<tool_call>...</tool_call>`` block (the Hermes/Qwen form), each one JSON object,
  the text outside the blocks kept as the reply's text; or
* the whole content, once a surrounding code fence is taken off, as one JSON object or a
  list of objects;

where each object is ``{"name": TEXT, "arguments": OBJECT or JSON TEXT}`` (``parameters``
is read as ``arguments``, as some templates spell it). Anything else stays text: the
reply is a message, not a call. What comes out is a
:class:`~workbench.agents.replies.ChatToolCall` like a server's own, and the same checks
follow (the caps on arguments, the registry's grant check before anything is called).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["PARSERS", "TextCall", "calls_in_text"]

#: The parsers a manifest or cassette may name.
PARSERS = ("json",)

#: One Hermes-style block. Non-greedy and without nesting, so one pass over the text.
_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
#: A Markdown code fence around the whole content (``json`` or no language).
_FENCE = re.compile(r"\A```[A-Za-z]*[ \t]*\n(.*)\n```\Z", re.DOTALL)

#: (name, arguments) of one call: arguments as the model gave them (an object, or text).
TextCall = tuple[str, Any]


def calls_in_text(content: str, parser: str, limit: int) -> tuple[list[TextCall], str | None]:
    """The calls ``content`` writes, and the text left once they are taken out.

    Args:
        content: The message's text.
        parser: One of :data:`PARSERS`.
        limit: Read no more calls than this (the caller refuses a reply past it).

    Returns:
        ``(calls, text)``: no calls and ``content`` itself when the text writes none.

    Raises:
        ValueError: ``parser`` is not one of :data:`PARSERS`.
    """
    if parser not in PARSERS:
        raise ValueError(f"{parser!r} is not a tool-call parser; allowed: {', '.join(PARSERS)}")
    if "<tool_call>" in content:
        blocks = []
        for match in _BLOCK.finditer(content):
            blocks.append(match.group(1))
            if len(blocks) > limit:
                break
        calls = [call for block in blocks if (call := _call(_load(block))) is not None]
        if not calls or len(calls) != len(blocks):
            return [], content  # a block that is not a call: the text is not a call
        rest = _BLOCK.sub("", content).strip()
        return calls, rest or None
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith(("{", "[")):
        return [], content
    value = _load(text)
    items = value[:limit + 1] if isinstance(value, list) else [value]
    calls = [call for item in items if (call := _call(item)) is not None]
    if not calls or len(calls) != len(items):
        return [], content
    return calls, None


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _call(value: Any) -> TextCall | None:
    """``(name, arguments)`` when ``value`` is a call object, else None."""
    if not isinstance(value, Mapping):
        return None
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict | str):
        return None
    if set(value) - {"name", "arguments", "parameters", "id", "type"}:
        return None  # an object that happens to have a "name": data, not a call
    return name, arguments
