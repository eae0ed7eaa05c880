"""Pure translations between the MCP wire and the workbench: specs, results, names, errors.

No I/O and no SDK import here: these helpers turn what a server sent (tool listings,
content blocks, exceptions) into the registry's :class:`~workbench.tools.registry.ToolSpec`,
plain JSON and one-line messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from workbench.errors import ToolCallError, ToolDenied, ToolNotFound
from workbench.tools.registry import ToolSpec

__all__ = [
    "HINT_DEFAULTS",
    "AmbiguousTool",
    "block_dict",
    "classify",
    "derive_name",
    "describe",
    "error_text",
    "first_line",
    "guarded_spec",
    "hints",
    "spec_from_wire",
    "unwrap",
]

# Path parts that say nothing about which server a command starts.
_GENERIC_PARTS = {"index", "main", "__main__", "dist", "build", "lib", "src", "bin", "server"}
_INTERPRETERS = {"python", "python3", "node", "npx", "uvx", "uv", "deno", "bun", "pipx"}


def derive_name(url: str | None, argv: list[str]) -> str:
    """A short server name from a URL's host or the command line's most telling part."""
    if url is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        return parts.netloc.rsplit("@", 1)[-1] or "http"
    args = list(argv)
    head = Path(args[0]).name
    if re.sub(r"[\d.]+$", "", head) in _INTERPRETERS and len(args) > 1:
        rest = [a for a in args[1:] if not a.startswith("-") or a == "-m"]
        if rest and rest[0] == "-m" and len(rest) > 1:
            return rest[1]
        args = rest or args
    for part in reversed(Path(args[0]).parts):
        stem = Path(part).stem
        if stem and stem.lower() not in _GENERIC_PARTS and stem not in ("/", "."):
            return stem
    return head


def spec_from_wire(wire: Mapping[str, Any]) -> ToolSpec:
    """A :class:`ToolSpec` (no ``run``) from a ``tools/list`` entry in wire form."""
    return ToolSpec(
        name=wire["name"],
        description=wire.get("description") or "",
        title=wire.get("title"),
        input_schema=wire.get("inputSchema"),
        output_schema=wire.get("outputSchema"),
        annotations=wire.get("annotations"),
    )


def block_dict(block: Any) -> dict[str, Any]:
    """A content block as a plain JSON dict (camelCase keys)."""
    return block.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_text(content: Iterable[Any]) -> str:
    """The text of an ``isError`` result's content (JSON of the blocks when none is text)."""
    blocks = list(content)
    texts = [b.text for b in blocks if getattr(b, "type", None) == "text"]
    if texts:
        return "\n".join(texts)
    return json.dumps([block_dict(b) for b in blocks]) if blocks else "the tool reported an error"


def describe(exc: BaseException) -> str:
    """``Type: first line of message`` of an exception, unwrapped from exception groups."""
    exc = unwrap(exc)  # anyio wraps a transport's failure in (nested) task groups
    text = first_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


#: MCP's annotation hints and the values the spec says to assume when a server omits them.
HINT_DEFAULTS: dict[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def hints(annotations: Mapping[str, Any] | None) -> dict[str, bool]:
    """The four hints of a tool, with the spec's defaults for those not given as booleans.

    Example:
        >>> hints({"readOnlyHint": True})["destructiveHint"]
        True
    """
    given = annotations or {}
    return {key: given[key] if isinstance(given.get(key), bool) else default
            for key, default in HINT_DEFAULTS.items()}


class AmbiguousTool(ToolDenied, ToolNotFound):
    """One server lists two or more definitions under one name: no call may pick one.

    A :class:`~workbench.errors.ToolDenied` (so a run records ``tool.denied``) and a
    :class:`~workbench.errors.ToolNotFound` (so prompts skip it, as they skip hidden tools).
    """

    def __init__(self, tool: str, server: str, count: int):
        super().__init__(
            "", tool, f"ambiguous: {server} lists {count} definitions of {tool!r}; curate it "
            f"(keep one in a surface) before calling it",
        )


def guarded_spec(wire: Mapping[str, Any], server: str) -> ToolSpec:
    """:func:`spec_from_wire` with its input schema compiled now.

    A server's schema is untrusted: if it is invalid (or cyclic, or too deep), every call
    of the tool fails with a recorded ``protocol_error`` naming the problem, instead of
    the registry's validation raising mid-turn.
    """
    from workbench.tools.registry import compile_schema

    spec = spec_from_wire(wire)
    if not spec.input_schema:
        return spec

    def unusable(exc: BaseException) -> ToolCallError:
        problem = (str(exc).splitlines() or [type(exc).__name__])[0][:300]
        return ToolCallError(
            "protocol_error", f"{server} gave {spec.name!r} an input schema that cannot be "
            f"used ({type(exc).__name__}: {problem}); the call was not sent", spec.name)

    try:
        if not isinstance(spec.input_schema, Mapping):
            raise ValueError("it is not a JSON object")
        compiled = compile_schema(spec.input_schema)
    except Exception as exc:  # invalid, cyclic (RecursionError), dangling $ref, ...
        failure = unusable(exc)

        def validator(params: Any) -> str | None:
            raise failure
    else:
        def validator(params: Any) -> str | None:
            try:
                return compiled(params)
            except Exception as exc:  # a cyclic or dangling $ref shows itself only on use
                raise unusable(exc) from None

    object.__setattr__(spec, "_validator", validator)
    return spec


def classify(exc: BaseException) -> tuple[str, str] | None:
    """``(kind, message)`` for an error that leaves the session usable, None if it is lost.

    JSON-RPC errors are ``protocol_error`` (our transports mark a result past the cap, which
    is the tool's outcome: ``tool_error``); a reply the SDK cannot validate (a list as
    ``structuredContent``, say) is ``protocol_error`` too. Only what says the transport is
    gone (closed streams, OS and HTTP errors) means the session is lost.
    """
    exc = unwrap(exc)
    error = getattr(exc, "error", None)
    code = getattr(error, "code", None)
    if isinstance(code, int):
        data = getattr(error, "data", None)
        mark = data.get("workbench") if isinstance(data, dict) else None
        if mark == "result_too_large":
            return "tool_error", str(error.message)
        if code == -32001:  # REQUEST_TIMEOUT
            return "timeout", ""
        if code == -32000:  # CONNECTION_CLOSED
            return None
        return "protocol_error", f"{first_line(str(error.message))} (JSON-RPC error {code})"
    if _is_transport_failure(exc):
        return None
    errors = getattr(exc, "errors", None)
    if callable(errors):  # pydantic: the reply does not have the shape MCP promises
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            title = getattr(exc, "title", "the reply")
            return "protocol_error", (f"the server's reply is not a valid {title}: "
                                      f"{where}: {first.get('msg')}")
        except Exception:  # noqa: S110 - fall through to the plain description
            pass
    return "protocol_error", f"the server's reply could not be used ({describe(exc)})"


def _is_transport_failure(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    modules = {cls.__module__.split(".")[0] for cls in type(exc).__mro__}
    return (isinstance(exc, OSError | EOFError)
            or bool(names & {"ClosedResourceError", "BrokenResourceError", "EndOfStream"})
            or "httpx2" in modules or "httpcore2" in modules or "httpcore" in modules)


def unwrap(exc: BaseException) -> BaseException:
    """The cause inside (nested) exception groups: the first member that is not a cancel."""
    while isinstance(exc, BaseExceptionGroup):
        members = [e for e in exc.exceptions if type(e).__name__ != "CancelledError"]
        exc = (members or list(exc.exceptions))[0]
    return exc


def first_line(text: str) -> str:
    """The first line of ``text`` (server messages may carry tracebacks)."""
    return (text.strip().splitlines() or [""])[0]
