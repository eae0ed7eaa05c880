"""Variants of a toolset that take the names or the descriptions away, tasks following."""

from __future__ import annotations

import pytest

from workbench.selection.tasks import Task
from workbench.selection.variants import VARIANTS, masked, undescribed, variant
from workbench.tools.registry import ToolSpec

SCHEMA = {"type": "object", "properties": {
    "zone": {"type": "string", "description": "An IANA timezone.", "title": "Zone"},
    "when": {"type": "object", "properties": {"hour": {"type": "integer",
                                                       "description": "0-23"}}},
    "tags": {"type": "array", "items": {"type": "object", "properties": {
        "label": {"type": "string", "description": "A label."}}}}},
    "required": ["zone"]}
SPECS = [ToolSpec("get_time", "Read the clock.", input_schema=SCHEMA, title="Clock"),
         ToolSpec("echo", "Say it back.")]
TASKS = [Task("what time is it", "get_time", must_not=("echo",)), Task("hello?", None)]


def descriptions(schema):
    found, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found += [node[k] for k in ("description", "title") if k in node]
            stack += list(node.values())
        elif isinstance(node, list):
            stack += node
    return found


class TestUndescribed:
    def test_every_description_and_title_goes_and_the_schema_stays(self):
        (bare, _) = undescribed(SPECS)
        assert (bare.title, bare.description) == (None, "")
        assert descriptions(bare.input_schema) == []
        assert bare.input_schema["required"] == ["zone"]
        assert bare.input_schema["properties"]["when"]["properties"]["hour"]["type"] == "integer"
        assert descriptions(SPECS[0].input_schema)  # the original is untouched


class TestMasked:
    def test_names_become_uninformative_and_tasks_follow(self):
        specs, tasks = masked(SPECS, TASKS)
        assert [(s.name, s.title) for s in specs] == [("tool_1", None), ("tool_2", None)]
        assert specs[0].description == "Read the clock."
        assert (tasks[0].tool, tasks[0].must_not, tasks[1].tool) == ("tool_1", ("tool_2",), None)


class TestVariant:
    @pytest.mark.parametrize(("name", "names", "described"), [
        ("named+described", ["get_time", "echo"], True),
        ("named", ["get_time", "echo"], False),
        ("masked+described", ["tool_1", "tool_2"], True),
        ("masked", ["tool_1", "tool_2"], False)])
    def test_each_variant_takes_away_what_its_name_says(self, name, names, described):
        specs, tasks = variant(name, SPECS, TASKS)
        assert [s.name for s in specs] == names
        assert bool(specs[0].description) is described
        assert len(tasks) == len(TASKS)

    def test_the_grid_is_the_four_conditions(self):
        assert VARIANTS == ("named+described", "named", "masked+described", "masked")

    def test_an_unknown_variant_names_the_allowed_ones(self):
        with pytest.raises(ValueError, match="allowed: named\\+described, named"):
            variant("nameless", SPECS, TASKS)
