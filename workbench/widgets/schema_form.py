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

__all__ = ["UNSET", "SchemaForm", "css_name", "resolve"]

#: Deeper than this, a required self-reference becomes a JSON box (nobody fills 8 levels).
_MAX_DEPTH = 8


def resolve(schema: Any, root: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with local ``$ref`` and single-part ``allOf`` followed, siblings kept.

    Sibling keys of a ``$ref`` (``description``, ``default``, ``title``) win over the
    target's, as JSON Schema 2020-12 and pydantic's output intend.

    Raises:
        FormError: a ``$ref`` is not local (``#/...``) or points nowhere.
    """
    schema = dict(schema) if isinstance(schema, Mapping) else {}
    seen: set[str] = set()
    while True:
        if "$ref" in schema:
            ref = schema.pop("$ref")
            if ref in seen:
                break
            seen.add(ref)
            schema = {**_pointer(ref, root), **schema}
        elif isinstance(schema.get("allOf"), list) and schema["allOf"]:
            parts = schema.pop("allOf")
            merged: dict[str, Any] = {}
            for part in parts:
                part = resolve(part, root)
                props = {**merged.get("properties", {}), **part.get("properties", {})}
                required = [*merged.get("required", []), *part.get("required", [])]
                merged.update(part)
                if props:
                    merged["properties"] = props
                if required:
                    merged["required"] = sorted(set(required))
            schema = {**merged, **schema}
        else:
            return schema
    return schema


def _pointer(ref: str, root: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise FormError(f"$ref {ref!r}: only references inside the schema (#/$defs/...) "
                        f"can be followed")
    node: Any = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            raise FormError(f"$ref {ref!r} points nowhere in the schema; allowed: a path "
                            f"into its $defs, e.g. #/$defs/Name")
        node = node[part]
    return dict(node) if isinstance(node, Mapping) else {}


class _Builder:
    """Builds fields for one schema: follows its refs, knows its ``$defs``."""

    def __init__(self, root: Mapping[str, Any]):
        self.root = root
        self._checks: dict[int, Callable[[Any], str | None]] = {}

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
        schema = self.resolve(raw)
        if depth > _MAX_DEPTH:
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
        self.schema = dict(schema or {"type": "object", "properties": {}})
        builder = _Builder(self.schema)
        root_schema = builder.resolve(self.schema)
        if "object" not in _types(root_schema) and "properties" not in root_schema:
            root_schema = {"type": "object", "properties": {}, **root_schema}
        self.root = _ObjectField(builder, root_schema, "", True, None, 0)
        super().__init__(children=[self.root.widget], **kwargs)

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
