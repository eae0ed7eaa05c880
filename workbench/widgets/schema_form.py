"""SchemaForm: a form generated from a tool's JSON Schema, filled by hand or from code.

A tool's ``inputSchema`` decides the form: a text box per string, a number box per
number or integer, a checkbox (or a yes/no/unset choice when optional) per boolean, a
dropdown per ``enum``, a list with *add* and *remove* per array, a framed group per
nested object, a *send null instead* tick for nullable fields, a variant dropdown for
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
naming every such field. What the fields give is then checked against the whole schema
(bounds such as ``minimum`` and ``maxLength``, patterns, formats), before any call, and
each problem is shown beside its field; the registry still validates the arguments on
every call, as in a run (a call typed as raw JSON meets only that check).

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

from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets

from workbench.errors import FormError
from workbench.textsafe import clip
from workbench.widgets.schema_builder import MAX_FORM_FIELDS, _Builder, resolve
from workbench.widgets.schema_fields import UNSET, _ObjectField, _types, close_parts, css_name

__all__ = ["MAX_FORM_FIELDS", "UNSET", "SchemaForm", "css_name", "resolve"]


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
        self._validator: Any = None  # built on the first read; False: the schema is broken

    #: Schema problems shown at most (a form of hundreds of bad values stays readable).
    MAX_SCHEMA_PROBLEMS = 20

    @property
    def value(self) -> dict[str, Any]:
        """The arguments as filled in.

        Raises:
            FormError: some fields cannot give a value; each is named and shows why.
        """
        problems: list[str] = []
        value = self._read(problems)
        if problems:
            raise FormError("; ".join(problems))
        return value

    def problems(self) -> list[str]:
        """Every field's problem, as ``path: text`` (also shown beside the fields)."""
        problems: list[str] = []
        self._read(problems)
        return problems

    def _read(self, problems: list[str]) -> Any:
        """The fields' values; shape problems first, then what the schema says of them."""
        value = self.root.read(problems)
        if problems:
            return value
        validator = self._schema_validator()
        if validator is None:
            return value
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.path])
        fields = self.root.fields() if errors else {}
        for error in errors[: self.MAX_SCHEMA_PROBLEMS]:
            path = _field_path(error.absolute_path)
            text = clip(error.message, 200)
            field = fields.get(path)
            if field is not None and path:
                field.fail(problems, text)
            else:
                problems.append(f"{path or '(arguments)'}: {text}")
        if len(errors) > self.MAX_SCHEMA_PROBLEMS:
            problems.append(f"and {len(errors) - self.MAX_SCHEMA_PROBLEMS:,} more")
        return value

    def _schema_validator(self) -> Any:
        """The schema's validator (local references only), or None when it cannot be built.

        A schema that cannot be compiled is the registry's to refuse on the call; the form
        then checks shape only.
        """
        if self._validator is None:
            from workbench.contracts.schemas import jsonschema_validator

            try:
                self._validator = jsonschema_validator(self.schema)
            except (ValueError, TypeError, RecursionError):
                self._validator = False
        return self._validator or None

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


def _field_path(parts: Any) -> str:
    """``["trip", "stops", 0, "city"]`` -> ``trip.stops[0].city``, as fields are named."""
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path
