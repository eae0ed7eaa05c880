"""SchemaForm: a form generated from a tool's JSON Schema, filled by hand or from code.

A tool's ``inputSchema`` decides the form: a text box per string, a number box per
number or integer, a checkbox (or a yes/no/unset choice when optional) per boolean, a
dropdown per ``enum``, a list with *add* and *remove* per array, a framed group per
nested object, a *null* tick for nullable fields, a variant dropdown for
``oneOf``/``anyOf``, and a JSON box for anything the schema leaves open. ``$ref`` into
``$defs`` (or ``definitions``) is followed; recursive types are built only when a person
(or code) asks for one more level, so a self-referencing schema gives a finite form.
Required fields carry a ``*`` and defaults are filled in.

The same form is driven from code: :meth:`SchemaForm.fill` puts a values dict into the
fields (what a scripted notebook or a test does), :attr:`SchemaForm.value` reads them
back as the call's arguments. Reading sends exactly what is filled: an optional field
left empty is omitted, never sent as ``""`` or ``0``. A field that cannot give a value
(a required field left empty, ``"abc"`` in a number box, broken JSON) shows its problem
beside itself, and :attr:`~SchemaForm.value` raises :class:`~workbench.errors.FormError`
naming every such field. The form checks shape, not the whole schema: the registry
validates the arguments against the tool's schema on every call, as in a run.

Example:
    >>> form = SchemaForm({"type": "object", "required": ["city"],
    ...                    "properties": {"city": {"type": "string"},
    ...                                   "days": {"type": "integer", "default": 3}}})
    >>> form.value
    Traceback (most recent call last):
    ...
    workbench.errors.FormError: city: required; fill it in
    >>> form.fill({"city": "Oslo"})
    >>> form.value
    {'city': 'Oslo'}
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets

from workbench.errors import FormError
from workbench.textsafe import clip
from workbench.widgets.schema_fields import (
    UNSET,
    _ArrayField,
    _BoolField,
    _ChoiceField,
    _EnumField,
    _Field,
    _JsonField,
    _NullableField,
    _NumberField,
    _ObjectField,
    _TextField,
    _types,
    close_parts,
    css_name,
)

__all__ = ["MAX_FORM_FIELDS", "UNSET", "SchemaForm", "css_name", "resolve"]

#: Deeper than this, a required self-reference becomes a JSON box (nobody fills 8 levels).
_MAX_DEPTH = 8
#: Fields one form builds. A person fills a form by hand, and a schema that asks for more
#: (ten required copies of itself, say, or thousands of properties) would take minutes to
#: build and be unusable when built: past the cap the other fields are one JSON box, and
#: the form says so.
MAX_FORM_FIELDS = 200
#: ``$ref`` and ``allOf`` steps followed to resolve one schema: a schema whose references
#: nest past this is shown as a JSON box rather than resolved without end.
MAX_RESOLVE_STEPS = 1_000


class _Steps:
    """What one resolution may still spend (shared by its nested ``allOf`` parts)."""

    def __init__(self) -> None:
        self.left = MAX_RESOLVE_STEPS

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _TooTangled


class _TooTangled(FormError):
    def __init__(self) -> None:
        super().__init__(f"the schema's references and allOf parts nest past "
                         f"{MAX_RESOLVE_STEPS} steps; the value is a JSON box instead")


def resolve(schema: Any, root: Mapping[str, Any], _seen: frozenset[str] = frozenset(),
            _steps: _Steps | None = None) -> dict[str, Any]:
    """``schema`` with local ``$ref`` and single-part ``allOf`` followed, siblings kept.

    Sibling keys of a ``$ref`` (``description``, ``default``, ``title``) win over the
    target's, as JSON Schema 2020-12 and pydantic's output intend. A reference met again
    inside its own resolution (``allOf: [{"$ref": "#"}]``) stops there, and the whole
    resolution takes at most :data:`MAX_RESOLVE_STEPS` steps.

    Raises:
        FormError: a ``$ref`` is not local (``#/...``) or points nowhere, or the schema
            needs more steps than allowed.
    """
    steps = _Steps() if _steps is None else _steps
    schema = dict(schema) if isinstance(schema, Mapping) else {}
    seen = set(_seen)
    while True:
        steps.spend()
        if "$ref" in schema:
            ref = schema.pop("$ref")
            if not isinstance(ref, str) or ref in seen:
                break
            seen.add(ref)
            schema = {**_pointer(ref, root), **schema}
        elif isinstance(schema.get("allOf"), list) and schema["allOf"]:
            parts = schema.pop("allOf")
            merged: dict[str, Any] = {}
            for part in parts:
                part = resolve(part, root, frozenset(seen), steps)
                props = {**_mapping(merged.get("properties")), **_mapping(part.get("properties"))}
                required = [*_strings(merged.get("required")), *_strings(part.get("required"))]
                merged.update(part)
                if props:
                    merged["properties"] = props
                if required:
                    merged["required"] = sorted(set(required))
            schema = {**merged, **schema}
        else:
            return schema
    return schema


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _pointer(ref: str, root: Mapping[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#"):
        raise FormError(f"$ref {clip(ref, 120)!r}: only references inside the schema "
                        f"(#/$defs/...) can be followed")
    node: Any = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            raise FormError(f"$ref {clip(ref, 120)!r} points nowhere in the schema; allowed: "
                            f"a path into its $defs, e.g. #/$defs/Name")
        node = node[part]
    return dict(node) if isinstance(node, Mapping) else {}


class _Builder:
    """Builds fields for one schema: follows its refs, knows its ``$defs``."""

    def __init__(self, root: Mapping[str, Any]):
        self.root = root
        self._checks: dict[int, Callable[[Any], str | None]] = {}
        #: Fields this form may still build (see :data:`MAX_FORM_FIELDS`).
        self.left = MAX_FORM_FIELDS

    def resolve(self, schema: Any) -> dict[str, Any]:
        return resolve(schema, self.root)

    def fits(self, variant: Mapping[str, Any], value: Any) -> bool:
        """Whether ``value`` is valid against ``variant`` (refs into the root work)."""
        from workbench.tools.registry import compile_schema

        key = id(variant)
        if key not in self._checks:
            defs = {k: self.root[k] for k in ("$defs", "definitions") if k in self.root}
            self._checks[key] = compile_schema({**copy.deepcopy(dict(variant)), **defs})
        return self._checks[key](value) is None

    def __call__(self, schema: Any, path: str, required: bool, name: str,
                 depth: int) -> _Field:
        raw = dict(schema) if isinstance(schema, Mapping) else {}
        self.left -= 1
        try:
            schema = self.resolve(raw)
        except _TooTangled as exc:
            return _JsonField({"description": str(exc)}, path, required, name)
        if depth > _MAX_DEPTH or self.left < 0:
            return _JsonField(schema, path, required, name)
        types = _types(schema)
        # Nullable: "type": [X, "null"], or a null variant among oneOf/anyOf.
        variants = schema.get("oneOf") or schema.get("anyOf")
        if isinstance(variants, list):
            resolved = [self.resolve(v) for v in variants]
            rest = [v for v, r in zip(variants, resolved, strict=True)
                    if _types(r) != ["null"]]
            if len(rest) < len(variants):
                inner = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf",
                                                                     "default")}
                inner = {**inner, **self.resolve(rest[0])} if len(rest) == 1 else \
                    {**inner, "anyOf": rest}
                field = self(inner, path, required, name, depth)
                return _NullableField(field, schema, path, required)
            return _ChoiceField(self, schema, variants, path, required, name, depth)
        if "null" in types and len(types) > 1:
            inner = {**schema, "type": [t for t in types if t != "null"]}
            if len(inner["type"]) == 1:
                inner["type"] = inner["type"][0]
            inner.pop("default", None)
            return _NullableField(self(inner, path, required, name, depth), schema, path,
                                  required)
        if "enum" in schema or "const" in schema:
            return _EnumField(schema, path, required, name)
        if len(types) > 1:
            as_choice = [{**schema, "type": t} for t in types]
            return _ChoiceField(self, schema, as_choice, path, required, name, depth)
        kind = types[0] if types else ("object" if "properties" in schema else None)
        if kind == "string":
            return _TextField(schema, path, required, name)
        if kind in ("number", "integer"):
            return _NumberField(schema, path, required, name)
        if kind == "boolean":
            return _BoolField(schema, path, required, name)
        if kind == "object" and (schema.get("properties") or path == ""):
            return _ObjectField(self, schema, path, required, name if path else None, depth)
        if kind == "array" and isinstance(schema.get("items"), Mapping | type(None)):
            return _ArrayField(self, schema, path, required, name, depth)
        return _JsonField(schema, path, required, name)


class SchemaForm(widgets.VBox):
    """A form for the arguments of a tool, built from its input schema.

    Args:
        schema: The tool's ``inputSchema`` (a JSON Schema object); None or ``{}`` gives
            a form with no fields.

    Attributes:
        schema: The schema as given.
        root: The field for the whole arguments object.
    """

    def __init__(self, schema: Mapping[str, Any] | None = None, **kwargs: Any):
        if schema is not None and not isinstance(schema, Mapping):
            raise FormError(f"the input schema is {type(schema).__name__}, not a JSON object; "
                            f"a form is built from an object schema")
        self.schema = dict(schema or {"type": "object", "properties": {}})
        builder = _Builder(self.schema)
        root_schema = builder.resolve(self.schema)
        if "object" not in _types(root_schema) and "properties" not in root_schema:
            root_schema = {"type": "object", "properties": {}, **root_schema}
        self.root = _ObjectField(builder, root_schema, "", True, None, 0)
        #: Whether the schema asked for more than :data:`MAX_FORM_FIELDS` fields.
        self.capped = builder.left < 0
        notice = [widgets.HTML(
            f'<div class="wb-form-capped" style="opacity:0.8">This schema asks for more '
            f"fields than a form shows ({MAX_FORM_FIELDS}); the rest are JSON boxes.</div>"
        )] if self.capped else []
        super().__init__(children=[*notice, self.root.widget], **kwargs)

    @property
    def value(self) -> dict[str, Any]:
        """The arguments as filled in.

        Raises:
            FormError: some fields cannot give a value; each is named and shows why.
        """
        problems: list[str] = []
        value = self.root.read(problems)
        if problems:
            raise FormError("; ".join(problems))
        return value

    def problems(self) -> list[str]:
        """Every field's problem, as ``path: text`` (also shown beside the fields)."""
        problems: list[str] = []
        self.root.read(problems)
        return problems

    def fill(self, values: Mapping[str, Any]) -> None:
        """Put ``values`` in the fields; every field not named is emptied.

        Raises:
            FormError: a key the schema does not have, a value of the wrong shape, an
                enum value not among the choices (the message names the field).
        """
        self.root.fill(values)

    def field(self, path: str) -> Any:
        """The field at ``path`` (``trip.stops[0].city``), for code and tests.

        Raises:
            KeyError: no such field (an optional group not yet included has no fields).
        """
        found = self.root.fields()
        if path not in found:
            raise KeyError(f"no field {path!r}; fields: {', '.join(sorted(p for p in found if p))}")
        return found[path]

    def paths(self) -> list[str]:
        """Every field's path, sorted."""
        return sorted(p for p in self.root.fields() if p)

    def close(self) -> None:
        """Close the form and every widget in it."""
        close_parts(self)
        super().close()

    def __repr__(self) -> str:
        return f"SchemaForm(fields={len(self.paths())})"
