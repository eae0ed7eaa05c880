"""The one renderer of a tool as an agent is shown it.

Whatever reads a tool's description on the agent's behalf reads it through this module, so
what a model is sent, what a prompt lists and what a ranker scores are the same text:

* :func:`tool_line` / :func:`tools_block`: the ``AVAILABLE TOOLS`` block of a prompt;
* :func:`function_definition` / :func:`function_definitions`: the OpenAI Chat Completions
  ``tools`` entries (name, curated description, parameters = the server's input schema);
* :func:`tool_text`: what a ranker scores (:mod:`workbench.selection`), derived from the
  function definition;
* :func:`function_name`: the name a tool goes by on that wire. OpenAI-compatible APIs
  accept ``[A-Za-z0-9_-]{1,64}`` while MCP allows dots and 128 characters, so other names
  get a safe, stable alias, and :func:`function_names` maps aliases back to tools.

Example:
    >>> from workbench.tools.registry import ToolSpec
    >>> spec = ToolSpec("oracle", "Read an omen.", input_schema={
    ...     "type": "object", "properties": {"seed": {"type": "string"}}, "required": ["seed"]})
    >>> tool_line(spec)
    '- oracle(seed: string): Read an omen.'
    >>> function_definition(spec)["function"]["name"]
    'oracle'
    >>> function_name("time.now")
    'time_now_0fa1a43b'
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.tools.registry import ToolSpec

__all__ = [
    "FUNCTION_NAME_RE",
    "function_definition",
    "function_definitions",
    "function_name",
    "function_names",
    "tool_line",
    "tool_signature",
    "tool_text",
    "tools_block",
]

#: Function names every OpenAI-compatible API accepts.
FUNCTION_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


def tool_signature(spec: ToolSpec) -> str:
    """``name(param: type, optional?: type)``, from the tool's input schema."""
    schema = _object(spec.input_schema)
    props = _object(schema.get("properties"))
    required = {r for r in schema.get("required") or () if isinstance(r, str)} \
        if isinstance(schema.get("required"), list) else set()
    params = ", ".join(
        f"{name}{'' if name in required else '?'}: {_type_of(info)}"
        for name, info in props.items()
    )
    return f"{spec.name}({params})"


def _object(value: Any) -> Mapping[str, Any]:
    # Schemas are the server's word: a string or a list where an object belongs renders
    # as no parameters (the registry refuses its calls), never as a crash mid-prompt.
    return value if isinstance(value, Mapping) else {}


def _type_of(info: Any) -> str:
    kind = info.get("type", "any") if isinstance(info, Mapping) else "any"
    return "|".join(map(str, kind)) if isinstance(kind, list) else str(kind)


def tool_line(spec: ToolSpec) -> str:
    """One tool as the ``AVAILABLE TOOLS`` block lists it: ``- signature: description``."""
    return f"- {tool_signature(spec)}: {spec.description}"


def tools_block(specs: Iterable[ToolSpec]) -> str:
    """The ``AVAILABLE TOOLS`` block of a prompt, listing exactly ``specs``."""
    lines = [tool_line(spec) for spec in specs]
    if not lines:
        return "AVAILABLE TOOLS: none"
    return "\n".join(["AVAILABLE TOOLS:", *lines])


def function_name(tool: str) -> str:
    """The name ``tool`` goes by in a Chat Completions request.

    A name the APIs accept is kept; any other gets its unsafe characters replaced and a
    short hash of the real name appended, so two tools never share an alias.
    """
    if FUNCTION_NAME_RE.match(tool):
        return tool
    digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
    return f"{_UNSAFE.sub('_', tool)[:55]}_{digest}"


def function_names(specs: Iterable[ToolSpec]) -> dict[str, str]:
    """Wire name -> tool name for ``specs`` (to map a model's calls back to tools)."""
    return {function_name(spec.name): spec.name for spec in specs}


def function_definition(spec: ToolSpec) -> dict[str, Any]:
    """``spec`` as an OpenAI ``tools`` entry: name, description, the input schema as is."""
    return {
        "type": "function",
        "function": {
            "name": function_name(spec.name),
            "description": spec.description,
            "parameters": dict(_object(spec.input_schema) or _EMPTY_SCHEMA),
        },
    }


def function_definitions(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """The ``tools`` list of a Chat Completions request for ``specs``, in order."""
    return [function_definition(spec) for spec in specs]


def tool_text(spec: ToolSpec) -> str:
    """Everything a model reads about ``spec``, as plain text, for rankers to score.

    Built from :func:`function_definition`, the very entry a model is sent: the name, the
    curated description, and each parameter's name and description. A ranker that scores
    this text scores what the agent sees, nothing more.
    """
    function = function_definition(spec)["function"]
    lines = [spec.name, function["description"] or ""]
    props = _object(function["parameters"].get("properties"))
    for name, info in props.items():
        about = info.get("description", "") if isinstance(info, Mapping) else ""
        lines.append(f"{name}: {about}".rstrip(": "))
    return "\n".join(line for line in lines if line)
