"""Building a :class:`~workbench.widgets.schema_form.SchemaForm`'s fields from a schema.

:class:`_Builder` is the one place a schema's shape becomes fields: it follows local
``$ref`` and ``allOf`` (:func:`resolve`, bounded in steps), picks a field class per shape
(:mod:`workbench.widgets.schema_fields`), and spends the form's field budget, so a schema
that asks for more than :data:`MAX_FORM_FIELDS` fields, or refers to itself without end,
still gives a finite form. Fields that hold sub-fields (objects, arrays, choices) call it
back for their children.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from workbench.errors import FormError
from workbench.textsafe import clip
from workbench.widgets.schema_fields import (
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
)

__all__ = ["MAX_FORM_FIELDS", "MAX_RESOLVE_STEPS", "resolve"]

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


