r"""What a model is really shown: a request's tools looked for in the prompt a server built.

An OpenAI-compatible server does not hand the model the request's JSON. It renders the
messages and the ``tools`` into one prompt through a *chat format* (the model file's own
template, or one the server supplies), and the model reads only that text. A format may
drop what the tool contract carefully curated: llama.cpp's ``chatml-function-calling``
shows each tool's name and parameter schema but never its description, and shows no tools
at all unless the request names a ``tool_choice``. So part of the tool contract is the
host's template, not the server.

:func:`seen_in_prompt` takes a request body and a rendered prompt (recorded beside a
cassette's exchanges, see :class:`~workbench.agents.cassette.Cassette`) and says, tool by
tool, whether the format's rendering of the tools carries its name, its description and
its parameters' descriptions, and whether the request's own messages carry the description
(then the model reads it whatever the format does). Templates write a tool as JSON, often
escaping ``<``, ``>``, ``&`` and ``'`` as ``\u003c``-style escapes, and some escape the
messages as HTML, so each text is looked for in the forms a template writes it in.

Example:
    >>> body = {"tools": [{"type": "function", "function": {
    ...     "name": "add", "description": "Adds <two> numbers.", "parameters": {}}}]}
    >>> [s.description for s in seen_in_prompt(body, '{"name": "add", "description": '
    ...     '"Adds \\u003ctwo\\u003e numbers."}')]
    [True]
    >>> [s.description for s in seen_in_prompt(body, "functions.add: {}")]
    [False]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ToolSeen", "seen_in_prompt"]


@dataclass(frozen=True)
class ToolSeen:
    """One tool of a request, as a prompt shows it.

    What the format renders of the tools is read apart from what the request's own messages
    carry: a system prompt that lists the tools (the workbench's ``AVAILABLE TOOLS`` block)
    shows their descriptions whatever the format does with ``tools``.

    Attributes:
        name: The function's name in the request.
        description: Whether the format's rendering of the tools carries the tool's
            description (True when the tool has none to show).
        parameters: Parameter descriptions that rendering carries, of those the schema has.
        parameters_described: How many parameter descriptions the schema has.
        named: Whether the rendering names the tool at all.
        in_messages: Whether the request's own messages carry the description (the model
            reads it there, whatever the format does).
    """

    name: str
    description: bool
    parameters: int
    parameters_described: int
    named: bool
    in_messages: bool = False


def seen_in_prompt(request: Mapping[str, Any], prompt: str) -> list[ToolSeen]:
    """Each of ``request``'s tools, and what of it ``prompt`` shows.

    Args:
        request: A Chat Completions request body (its ``tools``; anything else is ignored).
        prompt: The text a chat format rendered from it.
    """
    said = [m["content"] for m in request.get("messages") or ()
            if isinstance(m, Mapping) and isinstance(m.get("content"), str) and m["content"]]
    for text in said:  # what the messages carry is not the format's doing
        for form in sorted(_forms(text) | {_markup(text)}, key=len, reverse=True):
            prompt = prompt.replace(form, "\n")
    seen = []
    for item in request.get("tools") or ():
        function = item.get("function") if isinstance(item, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            continue
        described = _parameter_descriptions(function.get("parameters"))
        text = function.get("description")
        seen.append(ToolSeen(
            name=function["name"],
            description=not text or _shown(str(text), prompt),
            parameters=sum(1 for d in described if _shown(d, prompt)),
            parameters_described=len(described),
            named=_shown(function["name"], prompt),
            in_messages=bool(text) and any(_shown(str(text), m) for m in said)))
    return seen


def _shown(text: str, prompt: str) -> bool:
    """Whether ``prompt`` holds ``text`` as written or in a form a template writes it in."""
    return any(form in prompt for form in _forms(text.strip()))


def _forms(text: str) -> set[str]:
    plain = json.dumps(text, ensure_ascii=False)[1:-1]
    ascii_ = json.dumps(text)[1:-1]
    forms = {text, plain, ascii_}
    for form in (plain, ascii_):  # Jinja's tojson escapes these for HTML
        forms.add(form.replace("<", "\\u003c").replace(">", "\\u003e")
                  .replace("&", "\\u0026").replace("'", "\\u0027"))
    return {form for form in forms if form}


def _markup(text: str) -> str:
    """``text`` as Jinja's autoescape writes it into a template (some chat formats do)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&#34;").replace("'", "&#39;"))


def _parameter_descriptions(schema: Any) -> list[str]:
    """The descriptions of a schema's top-level properties."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    return [str(prop["description"]) for prop in properties.values()
            if isinstance(prop, Mapping) and isinstance(prop.get("description"), str)
            and prop["description"].strip()]
