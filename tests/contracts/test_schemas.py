"""Untrusted JSON Schemas: only local references, bounded work, no I/O (contracts/schemas.py).

The end-to-end cases (a hostile server's schemas through a call, a listing, an import,
a validation and a run) are in tests/tools/test_hostile_schemas.py; these check the rule
itself and its second wall, the resolvers handed to both compilers.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workbench.contracts.schemas import (
    MAX_SCHEMA_DEPTH,
    MAX_SCHEMA_ITEMS,
    NO_REMOTE,
    BoundedPattern,
    bound_patterns,
    jsonschema_validator,
    no_remote_registry,
    schema_problem,
)


@pytest.fixture
def bait():
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/s.json", hits
    server.shutdown()
    server.server_close()


def props(**kw):
    return {"type": "object", "properties": kw}


class TestLocalReferencesOnly:
    @pytest.mark.parametrize("ref", ["#", "#/$defs/A", "#/properties/a", "#anchor"])
    def test_a_local_reference_is_allowed(self, ref):
        schema = {**props(a={"$ref": ref}), "$defs": {"A": {"type": "string"}}}
        assert schema_problem(schema) is None

    @pytest.mark.parametrize("ref", [
        "http://127.0.0.1:9/s.json", "https://example.test/s", "file:///etc/passwd",
        "ftp://example.test/s", "data:application/json,{}", "other.json", "//host/s",
        "/etc/passwd", "", "urn:x:y"])
    def test_every_other_reference_is_refused_naming_where(self, ref):
        problem = schema_problem(props(a={"items": {"$ref": ref}}))
        assert problem is not None and "only local references" in problem
        assert "properties.a.items" in problem
        assert "\n" not in problem

    @pytest.mark.parametrize("key", ["$dynamicRef", "$recursiveRef"])
    def test_the_other_reference_keys_are_read_too(self, key):
        assert key in schema_problem(props(a={key: "http://x.test/s"}))

    @pytest.mark.parametrize("ref", [5, None, ["#"], {"a": 1}])
    def test_a_reference_that_is_not_a_string_is_refused(self, ref):
        assert "only local references" in schema_problem(props(a={"$ref": ref}))

    def test_a_long_reference_is_quoted_short(self):
        problem = schema_problem(props(a={"$ref": "http://x.test/" + "a" * 100_000}))
        assert len(problem) < 400

    def test_fastjsonschema_given_no_remote_fetches_nothing(self, bait):
        import fastjsonschema

        url, hits = bait
        with pytest.raises(ValueError, match="only local references"):
            fastjsonschema.compile(props(a={"$ref": url}), handlers=NO_REMOTE)
        assert hits == []

    def test_jsonschema_given_the_registry_fetches_nothing(self, bait):
        import jsonschema
        import referencing.exceptions

        url, hits = bait
        validator = jsonschema.Draft202012Validator(props(a={"$ref": url}),
                                                    registry=no_remote_registry())
        with pytest.raises(referencing.exceptions.Unresolvable):
            list(validator.iter_errors({"a": 1}))
        assert hits == []

    def test_the_validator_refuses_before_compiling(self, bait):
        url, hits = bait
        with pytest.raises(ValueError, match="only local references"):
            jsonschema_validator(props(a={"$ref": url}))
        assert hits == []


class TestBoundedWork:
    def test_nesting_past_the_cap_is_refused_without_recursion(self):
        schema: dict = {"type": "string"}
        for _ in range(100_000):
            schema = {"items": schema}
        problem = schema_problem(schema)
        assert f"more than {MAX_SCHEMA_DEPTH} levels" in problem

    def test_nesting_at_the_cap_is_allowed(self):
        schema: dict = {"type": "string"}
        for _ in range(MAX_SCHEMA_DEPTH - 1):
            schema = {"items": schema}
        assert schema_problem(schema) is None

    def test_too_many_values_are_refused(self):
        schema = props(**{f"p{i}": {"type": "string"} for i in range(MAX_SCHEMA_ITEMS)})
        assert "more than" in schema_problem(schema)

    def test_an_enum_of_100000_values_is_allowed(self):
        assert schema_problem(props(a={"enum": list(range(100_000))})) is None

    @pytest.mark.parametrize("schema, kind", [("not a schema", "a string"),
                                              ([{"type": "object"}], "a list"),
                                              (12, "a number"), (None, "null")])
    def test_a_schema_that_is_not_an_object_is_refused(self, schema, kind):
        assert f"a schema is a JSON object, got {kind}" in schema_problem(schema)

    def test_boolean_schemas_are_schemas(self):
        assert schema_problem(True) is None and schema_problem(props(a=False)) is None


class TestValidator:
    def test_an_invalid_schema_is_one_line_naming_where(self):
        with pytest.raises(ValueError) as caught:
            jsonschema_validator(props(a={"type": 12}))
        assert str(caught.value).startswith("not a valid JSON Schema at properties/a/type")
        assert "\n" not in str(caught.value)

    def test_local_references_resolve(self):
        schema = {**props(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"type": "string"}}}
        validator = jsonschema_validator(schema)
        assert validator.is_valid({"a": "x"}) and not validator.is_valid({"a": 1})

    def test_an_unknown_meta_schema_is_not_fetched(self, bait):
        url, hits = bait
        validator = jsonschema_validator({"$schema": url, **props(a={"type": "string"})})
        assert not validator.is_valid({"a": 1})
        assert hits == []


#: A pattern Python's re backtracks on without end for a near miss (2**40 steps for 40 a's
#: and a "!"); the regex module times it out too.
BACKTRACKS = "^(a|a)*$"
NEAR_MISS = "a" * 40 + "!"


class TestPatternsRunWithABound:
    """A server's pattern cannot hold the process: every validator searches it bounded."""

    def test_the_fast_validator_refuses_a_value_that_takes_too_long(self):
        from workbench.tools.registry import compile_schema

        check = compile_schema({"type": "object", "properties": {
            "q": {"type": "string", "pattern": BACKTRACKS}}})
        started = time.monotonic()
        problem = check({"q": NEAR_MISS})
        assert time.monotonic() - started < 3
        assert problem is not None and "took longer than" in problem
        assert check({"q": "aaaa"}) is None
        assert "must match pattern" in check({"q": "b"})

    @pytest.mark.parametrize("schema, value", [
        ({"type": "object", "properties": {"q": {"type": "string", "pattern": BACKTRACKS}}},
         {"q": NEAR_MISS}),
        ({"type": "object", "patternProperties": {BACKTRACKS: {"type": "string"}}},
         {NEAR_MISS: "x"}),
        ({"type": "object", "additionalProperties": False,
          "patternProperties": {BACKTRACKS: {"type": "string"}}}, {NEAR_MISS: "x"}),
    ], ids=["pattern", "patternProperties", "additionalProperties"])
    def test_the_jsonschema_validator_refuses_it_too(self, schema, value):
        validator = jsonschema_validator(schema)
        started = time.monotonic()
        errors = [e.message for e in validator.iter_errors(value)]
        assert time.monotonic() - started < 3
        assert any("took longer than" in e for e in errors), errors

    def test_the_jsonschema_validator_still_checks_as_before(self):
        validator = jsonschema_validator({
            "type": "object", "properties": {"id": {"type": "string"}},
            "additionalProperties": False,
            "patternProperties": {"^x-": {"type": "integer"}}})
        assert validator.is_valid({"id": "a", "x-count": 3})
        assert not validator.is_valid({"x-count": "three"})  # the pattern's subschema
        errors = [e.message for e in validator.iter_errors({"other": 1})]
        assert errors and "other" in errors[0]  # an additional property, named
        assert not jsonschema_validator({"type": "string", "pattern": "^b"}).is_valid("a")

    def test_bound_patterns_swaps_every_compiled_pattern(self):
        import fastjsonschema

        validate = bound_patterns(fastjsonschema.compile({
            "type": "object", "properties": {"q": {"type": "string", "pattern": "^a"}},
            "patternProperties": {"^k": {"type": "string"}}}))
        patterns = validate.__globals__["REGEX_PATTERNS"]
        assert patterns and all(isinstance(p, BoundedPattern) for p in patterns.values())
