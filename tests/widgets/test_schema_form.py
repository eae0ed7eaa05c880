"""SchemaForm: every schema shape a tool's inputSchema uses, filled by code and read back."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from workbench.errors import FormError
from workbench.tools.registry import compile_schema
from workbench.widgets.schema_form import UNSET, SchemaForm, css_name


def obj(required=(), **props):
    return {"type": "object", "properties": props, "required": list(required)}


class TestScalars:
    def test_string_number_integer_boolean_read_back_typed(self):
        form = SchemaForm(obj(["name", "count", "ratio", "loud"],
                              name={"type": "string"}, count={"type": "integer"},
                              ratio={"type": "number"}, loud={"type": "boolean"}))
        form.field("name").box.value = "Ada"
        form.field("count").box.value = "3"
        form.field("ratio").box.value = "0.25"
        form.field("loud").box.value = True
        assert form.value == {"name": "Ada", "count": 3, "ratio": 0.25, "loud": True}

    def test_bad_number_and_fraction_for_integer_are_named_beside_the_field(self):
        form = SchemaForm(obj(["count", "ratio"], count={"type": "integer"},
                              ratio={"type": "number"}))
        form.field("count").box.value = "2.5"
        form.field("ratio").box.value = "abc"
        with pytest.raises(FormError) as err:
            _ = form.value
        assert "count: '2.5' is not a whole number" in str(err.value)
        assert "ratio: 'abc' is not a number" in str(err.value)
        assert "not a number" in form.field("ratio").problem.value
        form.field("ratio").box.value = "1e3"
        form.field("count").box.value = "2"
        assert form.value == {"count": 2, "ratio": 1000.0}
        assert form.field("ratio").problem.value == ""

    def test_optional_empty_fields_are_omitted_never_sent_blank(self):
        form = SchemaForm(obj(name={"type": "string"}, n={"type": "integer"},
                              flag={"type": "boolean"}, tag={"enum": ["a", "b"]}))
        assert form.value == {}
        form.field("flag").box.value = False
        assert form.value == {"flag": False}

    def test_required_marks_and_missing_required_fields(self):
        form = SchemaForm(obj(["city"], city={"type": "string", "description": "Where"},
                              note={"type": "string"}))
        assert "*" in form.field("city").box.description
        assert "*" not in form.field("note").box.description
        assert form.field("city").box.tooltip == "Where"
        with pytest.raises(FormError, match=r"^city: required; fill it in$"):
            _ = form.value
        assert "required" in form.field("city").problem.value
        # The problem is shown right after the box, before the description.
        row = form.field("city").widget.children
        assert row[0] is form.field("city").box and row[1] is form.field("city").problem

    def test_defaults_are_filled_in(self):
        form = SchemaForm(obj(unit={"enum": ["c", "f"], "default": "c"},
                              days={"type": "integer", "default": 3},
                              verbose={"type": "boolean", "default": True},
                              label={"type": "string", "default": "x"}))
        assert form.value == {"unit": "c", "days": 3, "verbose": True, "label": "x"}

    def test_enum_is_a_dropdown_and_refuses_other_values(self):
        form = SchemaForm(obj(["unit"], unit={"type": "string", "enum": ["c", "f"]},
                              level={"enum": [1, 2, None]}))
        assert [o[0] for o in form.field("unit").box.options] == ["—", "c", "f"]
        form.fill({"unit": "f", "level": 2})
        assert form.value == {"unit": "f", "level": 2}
        with pytest.raises(FormError, match="'k' is not one of the choices; allowed: 'c', 'f'"):
            form.fill({"unit": "k"})

    def test_const_is_fixed(self):
        form = SchemaForm(obj(["v"], v={"const": "one"}))
        form.fill({"v": "one"})
        assert form.value == {"v": "one"}


class TestStructures:
    def test_array_of_strings_add_and_remove(self):
        form = SchemaForm(obj(["tags"], tags={"type": "array", "items": {"type": "string"}}))
        tags = form.field("tags")
        assert form.value == {"tags": []}
        tags.add_button.click()
        tags.add_button.click()
        form.field("tags[0]").box.value = "a"
        form.field("tags[1]").box.value = "b"
        assert form.value == {"tags": ["a", "b"]}
        tags.remove(0)
        assert form.value == {"tags": ["b"]}
        assert form.paths() == ["tags", "tags[0]"]

    def test_nested_objects_and_arrays_of_objects(self):
        stop = obj(["city"], city={"type": "string"}, nights={"type": "integer"})
        form = SchemaForm(obj(["trip"], trip=obj(["name", "stops"], name={"type": "string"},
                                                 stops={"type": "array", "items": stop})))
        values = {"trip": {"name": "north", "stops": [{"city": "Oslo", "nights": 2},
                                                      {"city": "Tromsø"}]}}
        form.fill(values)
        assert form.value == values
        assert form.field("trip.stops[1].city").box.value == "Tromsø"
        form.field("trip.stops[1].city").box.value = ""
        with pytest.raises(FormError, match=r"trip\.stops\[1\]\.city: required"):
            _ = form.value

    def test_optional_nested_object_is_built_when_included(self):
        form = SchemaForm(obj(address=obj(["street"], street={"type": "string"})))
        assert form.value == {}
        assert "address.street" not in form.paths()
        form.field("address").include.value = True
        form.field("address.street").box.value = "Storgata 1"
        assert form.value == {"address": {"street": "Storgata 1"}}

    def test_nullable_type_list_and_anyof_null(self):
        form = SchemaForm(obj(["a", "b"], a={"type": ["string", "null"]},
                              b={"anyOf": [{"type": "integer"}, {"type": "null"}],
                                 "default": None}))
        assert form.field("b").null.value is True
        form.field("a").inner.box.value = "x"
        assert form.value == {"a": "x", "b": None}
        form.fill({"a": None, "b": 4})
        assert form.value == {"a": None, "b": 4}
        assert form.field("a").null.value is True

    def test_ref_and_defs_are_followed_with_sibling_description(self):
        schema = {"type": "object", "required": ["home"],
                  "properties": {"home": {"$ref": "#/$defs/Place", "description": "Mine"}},
                  "$defs": {"Place": obj(["lat", "lon"], lat={"type": "number"},
                                         lon={"type": "number"})}}
        form = SchemaForm(schema)
        form.fill({"home": {"lat": 59.9, "lon": 10.75}})
        assert form.value == {"home": {"lat": 59.9, "lon": 10.75}}
        assert form.field("home").schema["description"] == "Mine"

    def test_a_ref_that_points_nowhere_names_itself(self):
        with pytest.raises(FormError, match=r"\$ref '#/\$defs/Nope' points nowhere"):
            SchemaForm(obj(["x"], x={"$ref": "#/$defs/Nope"}))

    def test_oneof_variants_pick_by_value_and_by_hand(self):
        car = obj(["kind", "seats"], kind={"const": "car"}, seats={"type": "integer"})
        boat = obj(["kind", "knots"], kind={"const": "boat"}, knots={"type": "number"})
        form = SchemaForm(obj(["ride"], ride={"oneOf": [car, boat]}))
        ride = form.field("ride")
        assert [o[0] for o in ride.picker.options] == ["—", "kind=car", "kind=boat"]
        form.fill({"ride": {"kind": "boat", "knots": 12.5}})
        assert ride.picker.value == 1
        assert form.value == {"ride": {"kind": "boat", "knots": 12.5}}
        ride.picker.value = 0
        form.field("ride.kind").box.value = "car"
        form.field("ride.seats").box.value = "4"
        assert form.value == {"ride": {"kind": "car", "seats": 4}}
        with pytest.raises(FormError, match="fits none of the 2 variants"):
            form.fill({"ride": {"kind": "plane"}})

    def test_anyof_of_scalars(self):
        form = SchemaForm(obj(["when"], when={"anyOf": [{"type": "string", "title": "date"},
                                                        {"type": "integer", "title": "epoch"}]}))
        form.fill({"when": 1700000000})
        assert form.field("when").picker.label == "epoch"
        assert form.value == {"when": 1700000000}

    def test_recursive_schema_gives_a_finite_form(self):
        schema = {"$ref": "#/$defs/Node", "$defs": {"Node": obj(
            ["label"], label={"type": "string"},
            children={"type": "array", "items": {"$ref": "#/$defs/Node"}})}}
        form = SchemaForm(schema)
        value = {"label": "root", "children": [{"label": "leaf", "children": []}]}
        form.fill(value)
        assert form.value == value

    def test_open_schema_is_a_json_box(self):
        form = SchemaForm(obj(["meta"], meta={"type": "object"}, anything={}))
        form.fill({"meta": {"k": [1, 2]}, "anything": "s"})
        assert form.value == {"meta": {"k": [1, 2]}, "anything": "s"}
        form.field("anything").box.value = "{bad"
        with pytest.raises(FormError, match="anything: not JSON"):
            _ = form.value

    def test_unknown_key_is_refused_and_names_the_allowed_ones(self):
        form = SchemaForm(obj(["seed"], seed={"type": "string"}))
        with pytest.raises(FormError, match=r"no field 'sede' in the schema; allowed: seed"):
            form.fill({"sede": "x"})

    def test_empty_or_missing_schema_gives_no_fields(self):
        assert SchemaForm(None).value == {}
        assert SchemaForm({"type": "object"}).paths() == []
        assert SchemaForm({"type": "object", "additionalProperties": True}).paths() == ["*"]

    def test_every_input_carries_a_css_class_named_by_its_path(self):
        form = SchemaForm(obj(["trip"], trip=obj(["name"], name={"type": "string"})))
        assert css_name("trip.name") in form.field("trip.name").box._dom_classes
        assert css_name("trip.stops[0].city") == "wb-field-trip-stops-0-city"


class Stop(BaseModel):
    city: str = Field(description="City name")
    nights: int = 1


class Traveller(BaseModel):
    name: str
    age: int | None = None


class Trip(BaseModel):
    title: str
    mode: Literal["rail", "road", "sea"] = "rail"
    stops: list[Stop]
    lead: Traveller
    budget: float | None = None
    flexible: bool = False


def test_a_pydantic_schema_round_trips_and_validates():
    """What MCPServer emits for typed parameters: $defs, $ref, anyOf null, enums, defaults."""
    schema = Trip.model_json_schema()
    form = SchemaForm(schema)
    assert form.field("mode").box.value == "rail"
    values = {"title": "north", "mode": "sea", "stops": [{"city": "Bodø", "nights": 2}],
              "lead": {"name": "Ada", "age": None}, "budget": 120.5, "flexible": True}
    form.fill(values)
    got = form.value
    assert got == values
    assert compile_schema(schema)(got) is None
    assert form.field("lead.age").null.value is True
    assert form.field("stops[0].city").schema["description"] == "City name"
    assert UNSET is not None


TEN = [f"f{i}" for i in range(10)]


class TestSchemasThatGrow:
    """Issue 23 item 5: whatever a schema's shape, a form is built in bounded work."""

    def test_ten_required_self_references_give_a_capped_form(self):
        from workbench.widgets.schema_form import MAX_FORM_FIELDS

        form = SchemaForm({"type": "object", "required": TEN,
                           "properties": {n: {"$ref": "#"} for n in TEN}})
        assert form.capped
        assert len(form.paths()) <= MAX_FORM_FIELDS + 20
        assert "more fields than a form shows" in form.children[0].value

    def test_thousands_of_properties_keep_the_rest_in_one_json_box(self):
        form = SchemaForm(obj(**{f"p{i}": {"type": "string"} for i in range(5_000)}))
        assert form.capped
        assert form.field("p0") is not None
        assert "p4999" not in form.paths()
        form.field("*").box.value = '{"p4999": "late"}'
        form.field("p0").box.value = "early"
        assert form.value == {"p0": "early", "p4999": "late"}

    def test_an_allof_of_itself_resolves_once(self):
        form = SchemaForm({"type": "object", "allOf": [{"$ref": "#"}],
                           "properties": {"a": {"type": "string"}}})
        assert form.paths() == ["a"]
        assert not form.capped

    def test_references_that_multiply_are_a_json_box_not_a_hang(self):
        defs = {f"D{i}": {"allOf": [{"$ref": f"#/$defs/D{j}"} for j in range(12) if j != i]}
                for i in range(12)}
        form = SchemaForm({"type": "object", "$defs": defs,
                           "properties": {"x": {"$ref": "#/$defs/D0"}}})
        assert form.paths() == ["x"]
        assert "JSON box" in form.field("x").schema["description"]

    def test_a_huge_enum_lists_some_choices_and_a_short_error(self):
        from workbench.widgets.schema_fields import MAX_CHOICES

        choices = [f"value-{i:06d}" for i in range(100_000)]
        form = SchemaForm(obj(["pick"], pick={"enum": choices}))
        assert len(form.field("pick").box.options) == MAX_CHOICES + 1
        form.fill({"pick": "value-099999"})  # beyond the listed ones, still a choice
        assert form.value == {"pick": "value-099999"}
        with pytest.raises(FormError) as caught:
            form.fill({"pick": "nope"})
        assert len(str(caught.value)) < 600
        assert "99,950 more" in str(caught.value)

    @pytest.mark.parametrize("schema", ["not a schema", [{"type": "object"}]])
    def test_a_schema_that_is_not_an_object_is_one_form_error(self, schema):
        with pytest.raises(FormError, match="not a JSON object"):
            SchemaForm(schema)


class TestSchemaChecksBeforeTheCall:
    """Issue 30 item 9: bounds and patterns are flagged beside their field, before a call."""

    def test_bounds_of_numbers_and_strings_are_named_beside_each_field(self):
        form = SchemaForm(obj(["n", "code"], n={"type": "integer", "minimum": 1, "maximum": 9},
                              code={"type": "string", "maxLength": 3,
                                    "pattern": "^[A-Z]+$"}))
        form.fill({"n": 12, "code": "abcd"})
        with pytest.raises(FormError) as err:
            _ = form.value
        text = str(err.value)
        assert "n: 12 is greater than the maximum of 9" in text
        assert "code: 'abcd' is too long" in text and "does not match '^[A-Z]+$'" in text
        assert "greater than the maximum" in form.field("n").problem.value
        form.fill({"n": 3, "code": "NO"})
        assert form.value == {"n": 3, "code": "NO"}
        assert form.field("n").problem.value == ""

    def test_a_nested_field_is_named_by_its_path(self):
        form = SchemaForm(obj(["stops"], stops={"type": "array", "items": obj(
            ["nights"], nights={"type": "integer", "minimum": 1})}))
        form.fill({"stops": [{"nights": 2}, {"nights": 0}]})
        assert form.problems() == ["stops[1].nights: 0 is less than the minimum of 1"]

    def test_a_schema_that_cannot_be_compiled_leaves_the_check_to_the_registry(self):
        form = SchemaForm(obj(["a"], a={"type": "string", "minLength": "three"}))
        form.fill({"a": "x"})
        assert form.value == {"a": "x"}

    def test_many_problems_are_listed_up_to_a_cap(self):
        props = {f"f{i}": {"type": "integer", "maximum": 0} for i in range(40)}
        form = SchemaForm(obj(list(props), **props))
        form.fill({name: 1 for name in props})
        problems = form.problems()
        assert len(problems) == SchemaForm.MAX_SCHEMA_PROBLEMS + 1
        assert problems[-1] == "and 20 more"


def test_the_null_tick_says_what_it_does():
    form = SchemaForm(obj([], a={"type": ["boolean", "null"]}))
    assert form.field("a").null.description == "send null instead"
