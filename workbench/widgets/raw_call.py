"""A call as text, both ways: raw JSON pasted into the ToolCaller, and a call copied out.

What an agent or a host sent is read as the arguments it carried (an arguments object, an
MCP ``tools/call`` request, an OpenAI tool call); a call made by hand is written back as
the ``tools/call`` request a host would send, or as the line of Python that makes it with
a :class:`~workbench.widgets.tool_caller.ToolCaller`. The text is the person's own, but
it is still bounded: a paste is parsed only up to :data:`MAX_RAW_CHARS`.
"""

from __future__ import annotations

import json
import math
import pprint
from typing import Any

from workbench.errors import FormError

__all__ = ["MAX_RAW_CHARS", "parse_raw_call", "python_call", "tools_call_request"]

#: The longest raw JSON read (a paste past this is a mistake, not a call).
MAX_RAW_CHARS = 1 << 20


def parse_raw_call(text: str) -> tuple[str | None, dict[str, Any]]:
    """``(tool or None, arguments)`` from raw JSON, as an agent or a host sent a call.

    Accepted: an arguments object; a ``tools/call`` JSON-RPC request (``jsonrpc`` and
    ``method`` present); an OpenAI tool call (``type: function`` and ``function``, whose
    ``arguments`` is a JSON string). Anything else that is an object is the arguments.

    Raises:
        FormError: not JSON (NaN, Infinity or a number past a float included), too long, or
            not an object (the message says what is allowed).
    """
    if len(text) > MAX_RAW_CHARS:
        raise FormError(f"arguments: {len(text):,} characters of JSON; at most "
                        f"{MAX_RAW_CHARS:,} are read")
    try:
        value = json.loads(text or "{}", parse_constant=_not_json, parse_float=_finite)
    except _NotFinite as exc:
        raise FormError(f"arguments: {exc} is not a JSON number (JSON has no NaN or "
                        f"Infinity; a number that large does not fit a float)") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(
            exc, json.JSONDecodeError) else ""
        raise FormError(f"arguments: not JSON{where}; give an object such as "
                        '{"name": "value"}') from None
    tool: Any = None
    if isinstance(value, dict) and "jsonrpc" in value and value.get("method") == "tools/call":
        params = value.get("params") if isinstance(value.get("params"), dict) else {}
        tool, value = params.get("name"), params.get("arguments", {})
    elif isinstance(value, dict) and value.get("type") == "function" and isinstance(
            value.get("function"), dict):
        tool, value = value["function"].get("name"), value["function"].get("arguments", "{}")
        if isinstance(value, str):
            return (str(tool) if tool is not None else None), parse_raw_call(value)[1]
    if not isinstance(value, dict):
        raise FormError(f"arguments: the JSON is {_kind(value)}; a tool's arguments are an "
                        f'object such as {{"name": "value"}}')
    return (str(tool) if tool is not None else None), value


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")



class _NotFinite(ValueError):
    """A number JSON does not have: NaN, Infinity, or one past a float's range."""


def _not_json(token: str) -> float:
    raise _NotFinite(token)


def _finite(token: str) -> float:
    number = float(token)
    if math.isinf(number):
        raise _NotFinite(token[:40])
    return number


def tools_call_request(tool: str, arguments: dict[str, Any]) -> str:
    """The MCP ``tools/call`` request for this call, as JSON (what a host sends)."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}
    return json.dumps(request, indent=2, ensure_ascii=False)


def python_call(arguments: dict[str, Any], *, source: str, agent: str, tool: str,
                approve: bool = False) -> str:
    """The line that makes this call with a ToolCaller named ``caller``."""
    args = pprint.pformat(arguments, indent=1, width=80, sort_dicts=False)
    tick = ", approve=True" if approve else ""
    return (f"outcome = caller.call({args}, source={source!r}, agent={agent!r}, "
            f"tool={tool!r}{tick})")
