"""The tool contract: what a tool is, who may call it, and where a call goes.

:class:`ToolRegistry` is the security boundary of the workbench. ``call`` checks the
caller's capability grants *first*, before any resolver (transport) is touched, then runs
the tool in-process or hands it to an attached :class:`ToolResolver` (the MCP client).
Arguments are validated against the tool's input schema on both paths, so a bad call has
the same outcome in-process and over MCP and ledgers stay identical across transports.

Example:
    >>> from workbench.tools.registry import ToolRegistry
    >>> reg = ToolRegistry()
    >>> _ = reg.register("add", "Add two integers.", lambda a, b: {"sum": a + b})
    >>> class Grants:  # anything with a ``tools`` attribute works as a manifest
    ...     tools = ["add"]
    >>> reg.call("calc", Grants(), "add", {"a": 1, "b": 2})
    {'sum': 3}
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from workbench.contracts.names import check_tool_name
from workbench.errors import CapabilityViolation, ToolCallError, ToolDenied, ToolNotFound
from workbench.textsafe import clip

__all__ = [
    "MAX_PROBLEM",
    "Guard",
    "ToolRegistry",
    "ToolResolver",
    "ToolSpec",
    "acall_through",
    "compile_schema",
]

#: The longest problem text a schema check returns: the values it quotes (an argument, an
#: enum's choices) come from a model or a server, and a message is for reading.
MAX_PROBLEM = 300


@dataclass(frozen=True)
class ToolSpec:
    """One tool as agents and transports see it.

    ``run`` is set for in-process tools and ``None`` for tools described by a resolver.
    The schema fields use MCP's meaning (JSON Schema objects); ``annotations`` holds MCP's
    hints (``readOnlyHint``, ``destructiveHint``, ...), which are hints, never guarantees.
    """

    name: str
    description: str
    run: Callable[..., dict[str, Any]] | None = None
    title: str | None = None
    input_schema: Mapping[str, Any] | None = None
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] | None = None
    _validator: Any = field(default=None, repr=False, compare=False)

    def _repr_html_(self) -> str:
        from workbench.reprs import tool_html

        return tool_html(self)

    def to_wire(self) -> dict[str, Any]:
        """The MCP ``tools/list`` form of this tool (camelCase keys, empty fields left out)."""
        wire: dict[str, Any] = {"name": self.name}
        if self.title:
            wire["title"] = self.title
        wire["description"] = self.description
        wire["inputSchema"] = dict(self.input_schema or {"type": "object", "properties": {}})
        if self.output_schema:
            wire["outputSchema"] = dict(self.output_schema)
        if self.annotations:
            wire["annotations"] = dict(self.annotations)
        return wire

    def validate_params(self, params: Mapping[str, Any]) -> None:
        """Raise a ``tool_error`` :class:`ToolCallError` if ``params`` break the input schema."""
        validator = self._validator
        if validator is None:
            if not self.input_schema:
                return
            validator = compile_schema(self.input_schema)
            object.__setattr__(self, "_validator", validator)
        problem = validator(params)
        if problem is not None:
            raise ToolCallError("tool_error", f"invalid arguments: {problem}", self.name)


def compile_schema(schema: Mapping[str, Any]) -> Callable[[Any], str | None]:
    """Compile a JSON Schema into ``check(value) -> problem text or None``.

    fastjsonschema generates Python code (about 2 microseconds a call, imported in
    milliseconds); schemas it cannot compile fall back to ``jsonschema``, which is
    complete but costs seconds to import, so it is only loaded when needed. Either way
    only local references resolve and the work is bounded
    (:mod:`workbench.contracts.schemas`), and a problem quotes at most
    :data:`MAX_PROBLEM` characters of what it was given.

    Raises:
        ValueError: the schema itself is invalid, or refers outside itself.
    """
    import fastjsonschema

    from workbench.contracts.schemas import (
        NO_REMOTE,
        PatternTooSlow,
        bound_patterns,
        jsonschema_validator,
        schema_problem,
    )

    problem = schema_problem(schema)
    if problem is not None:
        raise ValueError(problem)
    try:
        # use_default=False: validating must not write the schema's defaults into the
        # caller's params (nested dicts included), or the server and the ledger would get
        # arguments nobody sent.
        fast = bound_patterns(fastjsonschema.compile(dict(schema), handlers=NO_REMOTE,
                                                     use_default=False))
    except fastjsonschema.JsonSchemaDefinitionException:
        try:
            validator = jsonschema_validator(schema)
        except ValueError as exc:
            raise ValueError(f"invalid input schema: {exc}") from None
        return _slow_check(validator)

    def check(value: Any) -> str | None:
        try:
            fast(value)
        except PatternTooSlow as slow:
            return clip(slow.problem(), MAX_PROBLEM)
        except fastjsonschema.JsonSchemaValueException as exc:
            message = exc.message
            return clip("params" + message[4:] if message.startswith("data") else message,
                        MAX_PROBLEM)
        return None

    return check


def _slow_check(validator: Any) -> Callable[[Any], str | None]:
    import jsonschema.exceptions

    def check(value: Any) -> str | None:
        if validator.is_valid(value):
            return None
        err = jsonschema.exceptions.best_match(validator.iter_errors(value))
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        return clip(f"params{where}: {err.message}", MAX_PROBLEM)

    return check


@runtime_checkable
class ToolResolver(Protocol):
    """What an out-of-process transport offers the registry.

    The registry touches a resolver only after the capability check has passed.
    """

    def tool_names(self) -> list[str]:
        """Names of every tool the resolver can call, sorted."""
        ...

    def get_spec(self, name: str) -> ToolSpec | None:
        """The tool as its server describes it (``run`` is None), or None if unknown."""
        ...

    def call_tool(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Call the tool; return its structured result or raise :class:`ToolCallError`."""
        ...


#: A guard may refuse a granted call by raising :class:`ToolDenied` (approval, pins, ...).
Guard = Callable[[str, ToolSpec, Mapping[str, Any]], None]


class ToolRegistry:
    """Registered tools, an optional resolver, and the capability check in front of both."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}
        self._resolver: ToolResolver | None = None
        self._guards: list[Guard] = []

    # -- registration -----------------------------------------------------------------
    def register(
        self,
        name: str,
        description: str,
        run: Callable[..., dict[str, Any]],
        *,
        title: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        annotations: Mapping[str, Any] | None = None,
        replace: bool = False,
    ) -> ToolSpec:
        """Register an in-process tool.

        Args:
            name: MCP-valid tool name.
            description: What the tool does, as the agent will read it.
            run: ``run(**params)`` returning a JSON-serialisable dict.
            title: Optional human title.
            input_schema: JSON Schema for the params; validated on every call when given.
            output_schema: JSON Schema of the result (informational).
            annotations: MCP annotation hints.
            replace: Allow replacing an already registered tool of the same name.

        Raises:
            ToolNameError: ``name`` breaks the MCP rule.
            ValueError: the name is taken and ``replace`` is False, or ``description``
                is empty, or ``run`` is not callable.
        """
        check_tool_name(name)
        if not callable(run):
            raise ValueError(f"tool {name!r}: run must be callable, got {type(run).__name__}")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(f"tool {name!r}: description must be a non-empty string")
        if name in self._tools and not replace:
            raise ValueError(f"tool {name!r} is already registered; pass replace=True to swap it")
        validator = compile_schema(input_schema) if input_schema is not None else None
        spec = ToolSpec(
            name=name,
            description=description,
            run=run,
            title=title,
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=annotations,
            _validator=validator,
        )
        self._tools[name] = spec
        return spec

    def unregister(self, name: str) -> None:
        """Remove an in-process tool (KeyError if it is not registered)."""
        del self._tools[name]

    def attach(self, resolver: ToolResolver | None) -> None:
        """Put a resolver behind the registry (None detaches). Only stores it."""
        self._resolver = resolver

    @property
    def resolver(self) -> ToolResolver | None:
        """The attached resolver, if any."""
        return self._resolver

    def add_guard(self, guard: Guard) -> None:
        """Add a check that runs after the grant check and before dispatch."""
        self._guards.append(guard)

    @property
    def guards(self) -> tuple[Guard, ...]:
        """The guards, in the order they run (read-only: add one with :meth:`add_guard`)."""
        return tuple(self._guards)

    # -- lookup -----------------------------------------------------------------------
    def local_names(self) -> list[str]:
        """Names of in-process tools, sorted."""
        return sorted(self._tools)

    def __repr__(self) -> str:
        resolver = "" if self._resolver is None else f", resolver={type(self._resolver).__name__}"
        return f"ToolRegistry(in_process={sorted(self._tools)}{resolver})"

    def _repr_html_(self) -> str:
        from workbench.reprs import registry_html

        return registry_html(self)

    def known_tools(self) -> list[str]:
        """Names of every callable tool, in-process and from the resolver, sorted."""
        names = set(self._tools)
        if self._resolver is not None:
            names.update(self._resolver.tool_names())
        return sorted(names)

    def spec(self, name: str) -> ToolSpec:
        """The tool's spec: in-process first, then the resolver's description.

        Raises:
            ToolNotFound: registered nowhere.
        """
        found = self._tools.get(name)
        if found is None and self._resolver is not None:
            found = self._resolver.get_spec(name)
        if found is None:
            raise ToolNotFound(self._missing(name))
        return found

    def describe(self, names: Iterable[str]) -> list[ToolSpec]:
        """Specs for ``names`` in the given order, in-process descriptions preferred.

        Unknown names are skipped, so a prompt lists only what can really be called.
        """
        out = []
        for name in names:
            try:
                out.append(self.spec(name))
            except ToolNotFound:
                continue
        return out

    def transport_of(self, name: str) -> str:
        """``in-process`` or the resolver's transport label for a tool (telemetry only)."""
        if name in self._tools:
            return "in-process"
        label = getattr(self._resolver, "transport_label", None)
        return label(name) if callable(label) else "resolver"

    # -- the call path ----------------------------------------------------------------
    def call(
        self, agent_name: str, manifest: Any, tool: str, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Call ``tool`` for ``agent_name`` if its manifest grants it.

        Order matters: the grant check runs first and touches no resolver, then guards,
        then schema validation, then dispatch (in-process, else the resolver).

        Raises:
            CapabilityViolation: ``tool`` is not in ``manifest.tools``.
            ToolDenied: a guard refused the call.
            ToolNotFound: granted but registered nowhere.
            ToolCallError: the call failed (kind says how).
        """
        params = {} if params is None else params
        spec = self._tools.get(tool)
        if spec is not None and not self._guards and tool in manifest.tools:
            # Hot path: an in-process tool with no guards.
            spec.validate_params(params)
            return _run_local(spec, params)
        spec = self.checked(agent_name, manifest, tool, params)
        if spec.run is not None:
            return _run_local(spec, params)
        assert self._resolver is not None
        return self._resolver.call_tool(tool, params)

    async def acall(
        self, agent_name: str, manifest: Any, tool: str, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """:meth:`call` for a caller on an event loop: the same checks, then an awaited dispatch.

        The checks (grant, guards, schema) run before the first ``await``, as in
        :meth:`call`; a resolver with ``acall_tool`` is awaited on the caller's loop, one
        without it runs in a worker thread. In-process tools run inline.

        Raises:
            The same as :meth:`call`.
        """
        params = {} if params is None else params
        spec = self.checked(agent_name, manifest, tool, params)
        if spec.run is not None:
            return _run_local(spec, params)
        assert self._resolver is not None
        return await acall_through(self._resolver, tool, params)

    def checked(self, agent_name: str, manifest: Any, tool: str,
                params: Mapping[str, Any]) -> ToolSpec:
        """Everything a call must pass before dispatch, in order; the spec it is sent by.

        The grant check first (it touches no resolver), then the tool's spec, the guards
        and the input schema.

        Raises:
            CapabilityViolation, ToolDenied, ToolNotFound, ToolCallError: as :meth:`call`.
        """
        grants = manifest.tools
        if tool not in grants:
            raise CapabilityViolation(agent_name, tool, list(grants))
        spec = self._tools.get(tool)
        if spec is None:
            resolver = self._resolver
            spec = resolver.get_spec(tool) if resolver is not None else None
            if spec is None:
                raise ToolNotFound(self._missing(tool))
        for guard in self._guards:
            guard(agent_name, spec, params)
        spec.validate_params(params)
        return spec

    def _missing(self, name: str) -> str:
        known = ", ".join(self.known_tools()) or "none"
        return (
            f"tool {name!r} is granted but not registered in-process or offered by any "
            f"MCP server; known tools: {known}. Register it or configure the server that "
            f"provides it."
        )


async def acall_through(resolver: ToolResolver, name: str, params: Mapping[str, Any]
                        ) -> dict[str, Any]:
    """``resolver.call_tool`` from an event loop.

    Awaited if the resolver has ``acall_tool``, else run in a worker thread: a resolver that
    blocks must never stall the loop.
    """
    acall = getattr(resolver, "acall_tool", None)
    if acall is not None:
        return await acall(name, params)
    import asyncio

    return await asyncio.to_thread(resolver.call_tool, name, params)


def _run_local(spec: ToolSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    try:
        result = spec.run(**params)  # type: ignore[misc]
    except TypeError as exc:
        # A signature mismatch is the caller's mistake, reported like a schema error.
        if _is_signature_error(spec.run, params):
            raise ToolCallError("tool_error", f"invalid arguments: {exc}", spec.name) from exc
        raise ToolCallError("tool_error", str(exc) or type(exc).__name__, spec.name) from exc
    except ToolCallError:
        raise
    except ToolDenied:
        raise
    except Exception as exc:  # a tool's own failure is an outcome, not a crash
        raise ToolCallError("tool_error", str(exc) or type(exc).__name__, spec.name) from exc
    if not isinstance(result, dict):
        raise ToolCallError(
            "tool_error",
            f"returned {type(result).__name__}; a tool must return a JSON object (dict)",
            spec.name,
        )
    return result


def _is_signature_error(run: Any, params: Mapping[str, Any]) -> bool:
    try:
        inspect.signature(run).bind(**params)
    except TypeError:
        return True
    except ValueError:  # no signature available
        return False
    return False

