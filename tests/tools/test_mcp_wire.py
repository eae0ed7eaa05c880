"""Pure translations of the MCP wire (workbench/tools/mcp/wire.py): no server needed."""

from __future__ import annotations

import pytest

from workbench.errors import ToolCallError
from workbench.tools.mcp.wire import classify, describe, guarded_spec


class TestMessages:
    def test_nested_and_multi_member_exception_groups_are_unwrapped_to_the_cause(self):
        group = BaseExceptionGroup("unhandled errors in a TaskGroup", [
            ExceptionGroup("inner", [OSError("Connection refused")]), ValueError("later")])
        assert describe(group) == "OSError: Connection refused"
        assert classify(group) is None  # an OS error: the transport is gone

    def test_only_the_first_line_of_a_message_is_kept(self):
        assert describe(RuntimeError("boom\nTraceback (most recent call last):")) == (
            "RuntimeError: boom")


class TestSchemas:
    @pytest.mark.parametrize("schema", [
        {"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}},  # cyclic
        {"type": "object", "properties": {"a": {"type": 12}}},  # invalid
        {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}},  # dangling
        ["not", "an", "object"],
    ])
    def test_an_unusable_input_schema_fails_calls_as_protocol_error(self, schema):
        spec = guarded_spec({"name": "t", "description": "d", "inputSchema": schema}, "srv")
        with pytest.raises(ToolCallError) as caught:
            spec.validate_params({"a": 1})
        assert caught.value.kind == "protocol_error"
        assert caught.value.message.startswith("srv gave 't' an input schema that cannot be")

    def test_a_good_schema_still_validates(self):
        spec = guarded_spec({"name": "t", "description": "d", "inputSchema": {
            "type": "object", "properties": {"a": {"type": "integer"}}}}, "srv")
        spec.validate_params({"a": 1})
        with pytest.raises(ToolCallError, match="invalid arguments"):
            spec.validate_params({"a": "x"})
