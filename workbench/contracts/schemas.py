"""JSON Schemas from untrusted hands: checked, compiled and validated with no I/O, in bounded work.

A tool's ``inputSchema`` comes from a server nobody vetted, and a schema compiler is a
small interpreter: left to its defaults it follows a ``$ref`` to ``http://...`` (a request
from this machine, even for a call that is then refused) or to ``file://...`` (a local
file read, whose content can come back in an error message), and it walks whatever shape
it is given. Every place the workbench compiles or validates a schema (the registry, a
surface's validation and edits, the tool-call forms) goes through this module, which
holds the rule in one place (DESIGN.md section 10):

* only local references resolve: a ``$ref`` (or ``$dynamicRef``, ``$recursiveRef``) is a
  string that starts with ``#``; :func:`schema_problem` refuses anything else in one
  line naming where it is, before any compiler sees the schema;
* as a second wall, the compilers are handed resolvers that refuse every URI
  (:data:`NO_REMOTE` for fastjsonschema, :func:`no_remote_registry` for jsonschema), so
  a reference the first check let through still fetches and reads nothing;
* the work is bounded whatever the shape: at most :data:`MAX_SCHEMA_DEPTH` levels of
  nesting and :data:`MAX_SCHEMA_ITEMS` values in all, checked by one iterative walk;
* a ``pattern`` (or a ``patternProperties`` key) runs with a time bound: Python's ``re``
  backtracks without end on ``^(a+)+$`` against forty a's and a ``!``, holding the whole
  process, so a server's pattern is searched with the ``regex`` module's timeout
  (:data:`PATTERN_TIMEOUT`; :func:`bound_patterns` for fastjsonschema's compiled
  validators, :func:`jsonschema_validator` for jsonschema's), and a value that runs out of
  time is refused (:class:`PatternTooSlow`).

A key ``$ref`` counts wherever it appears, in a ``const`` or ``default`` too: the
compilers look there as well, so the check reads the schema the way they do.

Example:
    >>> schema_problem({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
    ...                 "$defs": {"A": {"type": "string"}}}) is None
    True
    >>> print(schema_problem({"properties": {"a": {"$ref": "http://x.test/s"}}}))
    ... # doctest: +ELLIPSIS
    $ref 'http://x.test/s' at properties.a: only local references ('#...') resolve; ...
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_ITEMS",
    "NO_REMOTE",
    "PATTERN_TIMEOUT",
    "REFERENCE_KEYS",
    "BoundedPattern",
    "PatternTooSlow",
    "bound_patterns",
    "jsonschema_validator",
    "no_remote_registry",
    "schema_problem",
]

#: Keys whose value is a reference to resolve.
REFERENCE_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")
#: Nesting of objects and arrays a schema may have. Hand-written and generated tool
#: schemas stay within a dozen levels; the compilers recurse once per level, so an
#: unbounded depth is a crash (RecursionError) rather than a refusal.
MAX_SCHEMA_DEPTH = 64
#: Values (keys of objects and members of arrays) a schema may hold in all: room for an
#: enum of 100,000 choices, while a schema built to make compiling take minutes is refused.
MAX_SCHEMA_ITEMS = 250_000
#: Seconds one ``pattern`` may search one value. A pattern written to match runs in
#: microseconds even on the largest argument a call may carry; one that backtracks without
#: end is cut off here instead of holding the process for hours.
PATTERN_TIMEOUT = 0.25
#: How much of an untrusted value a message quotes.
_QUOTE = 120


class PatternTooSlow(Exception):  # noqa: N818 - a refusal the validators turn into a problem
    """A value that a schema's pattern could not be searched in within :data:`PATTERN_TIMEOUT`."""

    def __init__(self, pattern: str):
        super().__init__(pattern)
        self.pattern = pattern

    def problem(self, where: str = "params") -> str:
        """The one-line refusal a call's validation reports."""
        return (f"{where}: searching the value with the schema's pattern "
                f"{_quote(self.pattern)} took longer than {PATTERN_TIMEOUT:g} s, so the "
                f"value is refused (a server's pattern runs with a time bound)")


class BoundedPattern:
    """A schema's pattern, compiled by the ``regex`` module and searched with a timeout.

    Offers ``search`` and ``match`` as a compiled ``re`` pattern does, so fastjsonschema's
    generated code calls it unchanged.

    Raises:
        ValueError: the pattern does not compile.
    """

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str, source: str | None = None):
        import regex

        try:
            self._compiled = regex.compile(pattern)
        except regex.error as exc:
            raise ValueError(f"pattern {_quote(source or pattern)} does not compile: "
                             f"{exc}") from None
        self.pattern = source or pattern

    def search(self, text: str) -> Any:
        """``regex`` search within :data:`PATTERN_TIMEOUT` (:class:`PatternTooSlow` past it)."""
        try:
            return self._compiled.search(text, timeout=PATTERN_TIMEOUT)
        except TimeoutError:
            raise PatternTooSlow(self.pattern) from None

    def match(self, text: str) -> Any:
        """As :meth:`search`, anchored at the start."""
        try:
            return self._compiled.match(text, timeout=PATTERN_TIMEOUT)
        except TimeoutError:
            raise PatternTooSlow(self.pattern) from None


def bound_patterns(validate: Any) -> Any:
    """Swap the ``re`` patterns of a fastjsonschema validator for bounded ones; return it.

    fastjsonschema compiles every ``pattern`` and ``patternProperties`` key with ``re``
    into the generated function's ``REGEX_PATTERNS``; each becomes a
    :class:`BoundedPattern` of the same expression (the format checks' own patterns too).

    Raises:
        ValueError: a pattern ``re`` took that ``regex`` does not compile.
    """
    import re

    patterns = getattr(validate, "__globals__", {}).get("REGEX_PATTERNS")
    if isinstance(patterns, dict):
        for key, compiled in list(patterns.items()):
            if isinstance(compiled, re.Pattern):
                patterns[key] = BoundedPattern(compiled.pattern, str(key))
    return validate


@functools.lru_cache(maxsize=1024)
def _bounded(pattern: str) -> BoundedPattern:
    return BoundedPattern(pattern)


def _where(path: tuple[Any, ...] | None) -> str:
    parts: list[str] = []
    while path is not None:
        path, key = path
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    text = "".join(reversed(parts)).lstrip(".")
    return text or "the top level"


def _quote(value: Any) -> str:
    from workbench.textsafe import clip, escape

    return escape(clip(repr(value), _QUOTE))


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` may not be compiled (one line), or None when it may.

    Refused: a schema that is not a JSON object (or a boolean schema); a reference that
    is not a local ``#...`` string; more than :data:`MAX_SCHEMA_DEPTH` levels of nesting;
    more than :data:`MAX_SCHEMA_ITEMS` values. The walk is iterative and stops at the
    first problem, so it costs at most one pass over the allowed size.
    """
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, Mapping):
        return (f"a schema is a JSON object, got {_kind(schema)}; a tool's parameters are an "
                f"object schema like {{\"type\": \"object\", \"properties\": {{...}}}}")
    items = 0
    stack: list[tuple[Any, int, tuple[Any, ...] | None]] = [(schema, 1, None)]
    while stack:
        node, depth, path = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            return (f"nested more than {MAX_SCHEMA_DEPTH} levels deep (at {_where(path)}); "
                    f"a tool schema this deep cannot be checked in bounded work")
        items += len(node)
        if items > MAX_SCHEMA_ITEMS:
            return (f"holds more than {MAX_SCHEMA_ITEMS:,} values; a tool schema this large "
                    f"cannot be checked in bounded work")
        if isinstance(node, Mapping):
            for key in REFERENCE_KEYS:
                if key in node:
                    ref = node[key]
                    if not isinstance(ref, str) or not ref.startswith("#"):
                        return (f"{key} {_quote(ref)} at {_where(path)}: only local references "
                                f"('#...') resolve; nothing outside the schema is fetched or "
                                f"read")
            entries: Any = node.items()
        else:
            entries = enumerate(node)
        for key, value in entries:
            if isinstance(value, Mapping | list | tuple):
                stack.append((value, depth + 1, (path, key)))
    return None


def _kind(value: Any) -> str:
    names = {str: "a string", list: "a list", tuple: "a list", int: "a number",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


class _RefuseEveryURI(dict):  # type: ignore[type-arg]
    """fastjsonschema's handlers: it asks ``scheme in handlers`` and else opens the URL."""

    def __contains__(self, scheme: object) -> bool:
        return True

    def __getitem__(self, scheme: str) -> Any:
        return _refuse

    def get(self, scheme: str, default: Any = None) -> Any:
        return _refuse


def _refuse(uri: str) -> Any:
    raise ValueError(f"reference {_quote(uri)}: only local references ('#...') resolve; "
                     f"nothing outside the schema is fetched or read")


#: Pass as ``handlers=`` to ``fastjsonschema.compile``: every scheme refused, none fetched.
NO_REMOTE: Mapping[str, Any] = _RefuseEveryURI()


def no_remote_registry() -> Any:
    """A ``referencing.Registry`` for jsonschema that retrieves nothing (every URI refused)."""
    import referencing

    return referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]


def jsonschema_validator(schema: Mapping[str, Any]) -> Any:
    """A jsonschema validator for ``schema`` that resolves only local references.

    Raises:
        ValueError: the schema breaks a rule of :func:`schema_problem`, or is not a valid
            JSON Schema (the message says where and why, in one line).
    """
    import jsonschema.exceptions
    import jsonschema.validators

    problem = schema_problem(schema)
    if problem is not None:
        raise ValueError(problem)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        raise ValueError(f"not a valid JSON Schema{' at ' + where if where else ''}: "
                         f"{_first_line(exc.message)}") from None
    return _with_bounded_patterns(cls)(schema, registry=no_remote_registry())


def _with_bounded_patterns(cls: Any) -> Any:
    """``cls`` with ``pattern``, ``patternProperties`` and ``additionalProperties`` bounded.

    jsonschema's own keywords search with ``re`` and no bound; these search with
    :class:`BoundedPattern` and otherwise behave as jsonschema's.
    """
    import jsonschema.validators
    from jsonschema.exceptions import ValidationError


    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "string"):
            return
        try:
            if not _bounded(patrn).search(instance):
                yield ValidationError(f"{_quote(instance)} does not match {_quote(patrn)}")
        except (PatternTooSlow, ValueError) as exc:
            yield ValidationError(_refusal(exc))

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        try:
            for patrn, subschema in patterns.items():
                for key, value in instance.items():
                    if _bounded(patrn).search(key):
                        yield from validator.descend(value, subschema, path=key,
                                                     schema_path=patrn)
        except (PatternTooSlow, ValueError) as exc:
            yield ValidationError(_refusal(exc))

    def additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
        # jsonschema's keyword, with the keys that no pattern matches found bounded (its own
        # search runs re on every key, which no key of a call may make take hours).
        if not validator.is_type(instance, "object"):
            return
        named = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        try:
            extras = [k for k in instance if k not in named
                      and not any(_bounded(p).search(k) for p in patterns)]
        except (PatternTooSlow, ValueError) as exc:
            yield ValidationError(_refusal(exc))
            return
        if validator.is_type(extra, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif not extra and extras:
            listed = ", ".join(_quote(k) for k in sorted(extras))
            if patterns:
                yield ValidationError(f"{listed} {'does' if len(extras) == 1 else 'do'} not "
                                      f"match any of the regexes: "
                                      f"{', '.join(_quote(p) for p in sorted(patterns))}")
            else:
                yield ValidationError(f"Additional properties are not allowed ({listed} "
                                      f"{'was' if len(extras) == 1 else 'were'} unexpected)")

    return jsonschema.validators.extend(cls, {"pattern": pattern,
                                              "patternProperties": pattern_properties,
                                              "additionalProperties": additional_properties})


def _refusal(exc: Exception) -> str:
    return exc.problem("the value") if isinstance(exc, PatternTooSlow) else str(exc)


def _first_line(text: str) -> str:
    from workbench.textsafe import clip

    return clip((text.strip().splitlines() or [""])[0], 300)
