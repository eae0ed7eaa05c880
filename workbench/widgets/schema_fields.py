"""The fields of a :class:`~workbench.widgets.schema_form.SchemaForm`, one class per shape.

Each field owns its widget, reads its value (or :data:`UNSET`, meaning "leave the key
out"), fills itself from a value, and shows its own problem beside itself. Containers
(objects, arrays, ``oneOf``/``anyOf`` choices) build their children through the form's
builder, so ``$ref`` and recursion are handled in one place (:mod:`.schema_builder`).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.errors import FormError
from workbench.textsafe import clip

if TYPE_CHECKING:
    from workbench.widgets.schema_builder import _Builder

__all__ = ["UNSET", "close_tree", "css_name"]


class _Unset:
    """Marks a field with nothing in it: the key is left out of the arguments."""

    def __repr__(self) -> str:
        return "UNSET"


#: What an empty field reads as (the key is omitted).
UNSET: Any = _Unset()
_LABEL_WIDTH = "11em"
#: Choices a dropdown lists; an enum longer than this shows its first ones (a page holding
#: 100,000 options freezes), and any choice can still be filled from code.
MAX_CHOICES = 500


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    return [k for k in kind if isinstance(k, str)] if isinstance(kind, list) else []


def close_tree(widget: widgets.Widget) -> None:
    """Close ``widget``, every widget below it, and their layouts and styles.

    ``Widget.close`` closes one model; a form is hundreds (each label has a layout and a
    style), and a notebook saves the state of every model still open.
    """
    close_parts(widget)
    widget.close()


def close_parts(widget: widgets.Widget) -> None:
    """Close every widget below ``widget`` and its own layout and style, not ``widget``.

    For a container's own ``close()``, which then closes itself with ``super().close()``.
    """
    for child in getattr(widget, "children", ()):
        close_tree(child)
    for part in (getattr(widget, "layout", None), getattr(widget, "style", None)):
        if isinstance(part, widgets.Widget):
            part.close()


def css_name(path: str) -> str:
    """A CSS class for the field at ``path``.

    ``trip.stops[0].city`` gives ``wb-field-trip-stops-0-city``: a browser test finds the
    input by it.
    """
    return "wb-field-" + (re.sub(r"[^A-Za-z0-9_]+", "-", path).strip("-") or "root")


class _Field:
    """One field: its widget, how to read it, how to fill it, its problem label."""

    widget: widgets.Widget

    def __init__(self, schema: dict[str, Any], path: str, required: bool):
        self.schema = schema
        self.path = path
        self.required = required
        # Made on the first problem: a form is hundreds of models, and a notebook saves them.
        self._problem: widgets.HTML | None = None
        self._row: widgets.Box | None = None
        self._control: widgets.Widget | None = None

    @property
    def problem(self) -> widgets.HTML:
        """The label beside the field that shows its problem ("" when there is none)."""
        if self._problem is None:
            self._problem = widgets.HTML()
            row = self._row
            if row is not None:
                at = list(row.children).index(self._control) + 1
                row.children = (*row.children[:at], self._problem, *row.children[at:])
        return self._problem

    def read(self, problems: list[str]) -> Any:
        """The field's value, or UNSET; a problem is shown and appended to ``problems``."""
        if self._problem is not None:
            self._problem.value = ""
        return self._read(problems)

    def _read(self, problems: list[str]) -> Any:
        return UNSET

    def fill(self, value: Any) -> None:
        """Put ``value`` in the field (UNSET empties it)."""

    def fields(self) -> dict[str, _Field]:
        """This field and every field below it, by path."""
        return {self.path: self}

    def fail(self, problems: list[str], text: str) -> Any:
        self.problem.value = (f'<span class="wb-problem" style="color:#b00020">'
                              f"{html.escape(text)}</span>")
        problems.append(f"{self.path or '(arguments)'}: {text}")
        return UNSET

    def missing(self, problems: list[str]) -> Any:
        return self.fail(problems, "required; fill it in") if self.required else UNSET

    def labelled(self, name: str, control: widgets.Widget) -> widgets.Widget:
        """``name *`` on the left, the control, the problem (when any), a grey description.

        Text boxes and dropdowns carry the name as their own description; other controls
        get a label beside them.
        """
        control.add_class(css_name(self.path))
        desc = self.schema.get("description") or ""
        title = self.schema.get("title")
        text = html.escape(name) + (' <b title="required">*</b>' if self.required else "")
        tip = f"{title}: {desc}" if title and desc else title or desc
        parts: list[widgets.Widget] = [control]
        if isinstance(control, widgets.Text | widgets.Textarea | widgets.Dropdown):
            control.description = text
            control.description_allow_html = True
            control.style.description_width = _LABEL_WIDTH
            # The layout's width is the box's; the description now takes room in it too.
            if control.layout.width:
                control.layout.width = f"calc({_LABEL_WIDTH} + {control.layout.width})"
            if tip:
                control.tooltip = tip
        else:
            # Right-aligned, as the descriptions of the text boxes and dropdowns are.
            label = widgets.HTML(f'<div title="{html.escape(tip, quote=True)}" '
                                 f'style="text-align:right;padding-right:8px">{text}</div>',
                                 layout=widgets.Layout(width=_LABEL_WIDTH,
                                                       min_width=_LABEL_WIDTH))
            parts.insert(0, label)
        if desc:
            parts.append(widgets.HTML(f'<span style="opacity:0.7;font-size:90%">'
                                      f"{html.escape(_short(desc))}</span>"))
        self._control = control
        self._row = widgets.HBox(parts)
        return self._row


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _TextField(_Field):
    def __init__(self, schema: dict[str, Any], path: str, required: bool, name: str):
        super().__init__(schema, path, required)
        self.box = widgets.Text(placeholder=schema.get("format") or "text",
                                layout=widgets.Layout(width="18em"))
        self.widget = self.labelled(name, self.box)
        if isinstance(schema.get("default"), str):
            self.box.value = schema["default"]

    def _read(self, problems: list[str]) -> Any:
        return self.box.value if self.box.value != "" else self.missing(problems)

    def fill(self, value: Any) -> None:
        self.box.value = "" if value is UNSET else str(value)


class _NumberField(_Field):
    def __init__(self, schema: dict[str, Any], path: str, required: bool, name: str):
        super().__init__(schema, path, required)
        self.integer = "integer" in _types(schema)
        bounds = [f"{k} {schema[k]}" for k in ("minimum", "maximum") if k in schema]
        self.box = widgets.Text(placeholder=", ".join(
            ["integer" if self.integer else "number", *bounds]),
            layout=widgets.Layout(width="12em"))
        self.widget = self.labelled(name, self.box)
        if isinstance(schema.get("default"), int | float):
            self.fill(schema["default"])

    def _read(self, problems: list[str]) -> Any:
        text = self.box.value.strip()
        if not text:
            return self.missing(problems)
        try:
            number = float(text)
        except ValueError:
            return self.fail(problems, f"{text!r} is not a number")
        if self.integer:
            if not number.is_integer():
                return self.fail(problems, f"{text!r} is not a whole number")
            return int(number)
        return int(number) if re.fullmatch(r"[+-]?\d+", text) else number

    def fill(self, value: Any) -> None:
        self.box.value = "" if value is UNSET else str(value)


class _BoolField(_Field):
    """A checkbox when required; yes / no / unset when the key may be left out."""

    def __init__(self, schema: dict[str, Any], path: str, required: bool, name: str):
        super().__init__(schema, path, required)
        default = schema.get("default")
        if required:
            self.box: widgets.ValueWidget = widgets.Checkbox(value=default is True,
                                                             indent=False)
        else:
            self.box = widgets.Dropdown(options=[("—", UNSET), ("true", True),
                                                 ("false", False)],
                                        value=default if isinstance(default, bool) else UNSET,
                                        layout=widgets.Layout(width="8em"))
        self.widget = self.labelled(name, self.box)

    def _read(self, problems: list[str]) -> Any:
        return self.box.value

    def fill(self, value: Any) -> None:
        if self.required:
            self.box.value = value is True
        else:
            self.box.value = value if isinstance(value, bool) else UNSET


class _EnumField(_Field):
    def __init__(self, schema: dict[str, Any], path: str, required: bool, name: str):
        super().__init__(schema, path, required)
        choices = list(schema["enum"]) if "enum" in schema else [schema["const"]]
        self.choices = choices
        # A dropdown sends every choice to the page; past the cap the list is cut, and a
        # value from code is still checked against every choice.
        options = [("—", UNSET), *((json.dumps(c, ensure_ascii=False) if not isinstance(c, str)
                                    else c, c) for c in choices[:MAX_CHOICES])]
        self.box = widgets.Dropdown(options=options, value=UNSET,
                                    layout=widgets.Layout(width="14em"))
        self.widget = self.labelled(name, self.box)
        if "default" in schema and schema["default"] in choices:
            self.box.value = schema["default"]

    def _read(self, problems: list[str]) -> Any:
        value = self.box.value
        return self.missing(problems) if value is UNSET else value

    def fill(self, value: Any) -> None:
        if value is not UNSET and value not in self.choices:
            allowed = clip(", ".join(map(repr, self.choices[:50])), 300)
            more = f" and {len(self.choices) - 50:,} more" if len(self.choices) > 50 else ""
            raise FormError(f"{self.path}: {clip(repr(value), 120)} is not one of the choices; "
                            f"allowed: {allowed}{more}")
        if value is not UNSET and value not in self.choices[:MAX_CHOICES]:
            self.box.options = [*self.box.options, (clip(str(value), 120), value)]
        self.box.value = value


class _JsonField(_Field):
    """Anything the schema leaves open: typed as JSON."""

    def __init__(self, schema: dict[str, Any], path: str, required: bool, name: str):
        super().__init__(schema, path, required)
        self.box = widgets.Textarea(placeholder="JSON", rows=2,
                                    layout=widgets.Layout(width="24em"))
        self.widget = self.labelled(name, self.box)
        if "default" in schema:
            self.fill(schema["default"])

    def _read(self, problems: list[str]) -> Any:
        text = self.box.value.strip()
        if not text:
            return self.missing(problems)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            return self.fail(problems, f"not JSON ({exc.msg} at column {exc.colno})")

    def fill(self, value: Any) -> None:
        self.box.value = "" if value is UNSET else json.dumps(value, ensure_ascii=False)


class _NullableField(_Field):
    """A field that may also be ``null``: the inner field plus a *send null instead* tick."""

    def __init__(self, inner: _Field, schema: dict[str, Any], path: str, required: bool):
        super().__init__(schema, path, required)
        self.inner = inner
        # Said as what the tick does: a bare "null" beside a checkbox reads as its label.
        self.null = widgets.Checkbox(value="default" in schema and schema["default"] is None,
                                     description="send null instead", indent=False,
                                     tooltip="Send JSON null for this field (the schema "
                                             "allows it) and ignore what is typed beside",
                                     layout=widgets.Layout(width="11em"))
        self.null.add_class(css_name(path) + "-null")
        self.null.observe(self._on_null, names=["value"])
        self.widget = widgets.HBox([inner.widget, self.null])
        self._on_null(None)

    def _on_null(self, _change: Any) -> None:
        self.inner.widget.layout.opacity = "0.4" if self.null.value else None

    def _read(self, problems: list[str]) -> Any:
        return None if self.null.value else self.inner.read(problems)

    def fill(self, value: Any) -> None:
        self.null.value = value is None
        self.inner.fill(UNSET if value is None else value)

    def fields(self) -> dict[str, _Field]:
        return {**self.inner.fields(), self.path: self}


class _ObjectField(_Field):
    """A group of named fields; an optional group is built when first included."""

    def __init__(self, build: _Builder, schema: dict[str, Any], path: str, required: bool,
                 name: str | None, depth: int):
        super().__init__(schema, path, required)
        self.build, self.depth = build, depth
        self.children: dict[str, _Field] = {}
        self.extra: _JsonField | None = None
        self.body = widgets.VBox(layout=widgets.Layout(
            border="1px solid var(--jp-border-color2, #ccc)" if name else "",
            padding="2px 6px" if name else "0", margin="2px 0 2px 1.5em" if name else "0"))
        self.include: widgets.Checkbox | None = None
        header: list[widgets.Widget] = []
        if name is not None:
            if not required and schema.get("default") is None:
                self.include = widgets.Checkbox(value=False, description="include",
                                                indent=False, layout=widgets.Layout(width="6em"))
                self.include.add_class(css_name(path) + "-include")
                self.include.observe(self._on_include, names=["value"])
            title = self.labelled(name, self.include or widgets.HTML("<i>object</i>"))
            header.append(title)
        self.widget = widgets.VBox([*header, self.body])
        if self.include is None:
            self._build()
            if isinstance(schema.get("default"), Mapping):
                self.fill(schema["default"])
        else:
            self.body.layout.display = "none"

    def _build(self) -> None:
        if self.children or self.extra is not None:
            return
        props = self.schema.get("properties") or {}
        required = set(self.schema.get("required") or ())
        left_out = 0
        for key, sub in props.items():
            if self.build.left <= 0:  # the form's field budget is spent: one box for the rest
                left_out = len(props) - len(self.children)
                break
            child_path = f"{self.path}.{key}" if self.path else key
            self.children[key] = self.build(sub, child_path, key in required, key,
                                            self.depth + 1)
        extra = self.schema.get("additionalProperties")
        if left_out:
            self.build.left = -1
            path = f"{self.path}.*" if self.path else "*"
            self.extra = _JsonField({"description": f"the other {left_out} fields, as a JSON "
                                     f"object"}, path, False, "other fields")
        elif extra is True or isinstance(extra, Mapping) and extra:
            # Free-form keys: one JSON box for them (merged into the object).
            path = f"{self.path}.*" if self.path else "*"
            self.extra = _JsonField({"description": "more keys, as a JSON object"}, path,
                                    False, "other keys" if props else "keys")
        self.body.children = [c.widget for c in self.children.values()] + (
            [self.extra.widget] if self.extra is not None else [])

    def _on_include(self, _change: Any) -> None:
        if self.include is not None and self.include.value:
            self._build()
        self.body.layout.display = None if self.include is None or self.include.value \
            else "none"

    def _read(self, problems: list[str]) -> Any:
        if self.include is not None and not self.include.value:
            return self.missing(problems)
        out: dict[str, Any] = {}
        for key, child in self.children.items():
            value = child.read(problems)
            if value is not UNSET:
                out[key] = value
        if self.extra is not None:
            more = self.extra.read(problems)
            if isinstance(more, Mapping):
                out.update(more)
            elif more is not UNSET:
                self.extra.fail(problems, "must be a JSON object")
        return out

    def fill(self, value: Any) -> None:
        if value is UNSET:
            if self.include is not None:
                self.include.value = False
            for child in self.children.values():
                child.fill(UNSET)
            if self.extra is not None:
                self.extra.fill(UNSET)
            return
        if not isinstance(value, Mapping):
            raise FormError(f"{self.path or '(arguments)'}: expected an object (a dict), got "
                            f"{type(value).__name__}")
        if self.include is not None:
            self.include.value = True
        self._build()
        unknown = {k: v for k, v in value.items() if k not in self.children}
        if unknown and self.extra is None:
            allowed = ", ".join(self.children) or "none"
            raise FormError(f"{self.path or '(arguments)'}: no field {sorted(unknown)[0]!r} "
                            f"in the schema; allowed: {allowed}")
        for key, child in self.children.items():
            child.fill(value.get(key, UNSET))
        if self.extra is not None:
            self.extra.fill(unknown if unknown else UNSET)

    def fields(self) -> dict[str, _Field]:
        found: dict[str, _Field] = {self.path: self}
        for child in self.children.values():
            found.update(child.fields())
        if self.extra is not None:
            found.update(self.extra.fields())
        return found


class _ArrayField(_Field):
    """A list of item fields with *add* and *remove* buttons."""

    def __init__(self, build: _Builder, schema: dict[str, Any], path: str, required: bool,
                 name: str, depth: int):
        super().__init__(schema, path, required)
        self.build, self.depth = build, depth
        self.items: list[_Field] = []
        # An optional list is left out until an item is added or a list is filled in.
        self.present = required
        self.add_button = widgets.Button(description="add", icon="plus",
                                         layout=widgets.Layout(width="6em"))
        self.add_button.on_click(lambda _b: self.append())
        self.rows = widgets.VBox(layout=widgets.Layout(margin="0 0 0 1.5em"))
        self.widget = widgets.VBox([self.labelled(name, self.add_button), self.rows])
        if isinstance(schema.get("default"), list):
            self.fill(schema["default"])

    def append(self) -> _Field:
        """Add an empty item at the end and return its field."""
        item_schema = self.schema.get("items")
        item = self.build(item_schema if isinstance(item_schema, Mapping) else {},
                          f"{self.path}[{len(self.items)}]", True, f"[{len(self.items)}]",
                          self.depth + 1)
        self.items.append(item)
        self.present = True
        self._render()
        return item

    def remove(self, index: int) -> None:
        """Remove item ``index``; the items after it move up (and are renamed)."""
        values = [item.read([]) for item in self.items]
        del values[index]
        self.fill(values)

    def _render(self) -> None:
        rows = []
        for index, item in enumerate(self.items):
            button = widgets.Button(icon="times", tooltip="remove this item",
                                    layout=widgets.Layout(width="2.5em"))
            button.add_class(css_name(item.path) + "-remove")
            button.on_click(lambda _b, i=index: self.remove(i))
            rows.append(widgets.HBox([item.widget, button]))
        self.rows.children = rows

    def _read(self, problems: list[str]) -> Any:
        if not self.present:
            return UNSET
        values = [item.read(problems) for item in self.items]
        return [None if v is UNSET else v for v in values]

    def fill(self, value: Any) -> None:
        if not isinstance(value, list | tuple) and value is not UNSET:
            raise FormError(f"{self.path}: expected a list, got {type(value).__name__}")
        self.items = []
        for element in [] if value is UNSET else value:
            self.append().fill(element)
        self.present = self.required or value is not UNSET
        self._render()

    def fields(self) -> dict[str, _Field]:
        found: dict[str, _Field] = {self.path: self}
        for item in self.items:
            found.update(item.fields())
        return found


class _ChoiceField(_Field):
    """``oneOf``/``anyOf``: pick a variant, fill its fields."""

    def __init__(self, build: _Builder, schema: dict[str, Any], variants: list[Any],
                 path: str, required: bool, name: str, depth: int):
        super().__init__(schema, path, required)
        self.build, self.depth = build, depth
        self.variants = [build.resolve(v) for v in variants]
        labels = [_variant_label(v, i) for i, v in enumerate(self.variants)]
        self.picker = widgets.Dropdown(options=[("—", -1), *((lab, i) for i, lab in
                                                              enumerate(labels))],
                                       value=-1, layout=widgets.Layout(width="14em"))
        self.picker.observe(self._on_pick, names=["value"])
        self.current: _Field | None = None
        self.slot = widgets.VBox(layout=widgets.Layout(margin="0 0 0 1.5em"))
        self.widget = widgets.VBox([self.labelled(name, self.picker), self.slot])
        if required or "default" in schema:
            self.picker.value = 0
        if "default" in schema:
            self.fill(schema["default"])

    def _on_pick(self, _change: Any) -> None:
        index = self.picker.value
        if index < 0:
            self.current = None
            self.slot.children = []
            return
        self.current = self.build(self.variants[index], self.path, True, "value", self.depth)
        self.slot.children = [self.current.widget]

    def _read(self, problems: list[str]) -> Any:
        if self.current is None:
            return self.missing(problems)
        return self.current.read(problems)

    def fill(self, value: Any) -> None:
        if value is UNSET:
            self.picker.value = 0 if self.required else -1
            if self.current is not None:
                self.current.fill(UNSET)
            return
        for index, variant in enumerate(self.variants):
            if self.build.fits(variant, value):
                self.picker.value = index
                if self.current is None:
                    self._on_pick(None)
                assert self.current is not None
                self.current.fill(value)
                return
        raise FormError(f"{self.path}: {value!r} fits none of the {len(self.variants)} "
                        f"variants ({', '.join(o[0] for o in self.picker.options[1:])})")

    def fields(self) -> dict[str, _Field]:
        found = self.current.fields() if self.current is not None else {}
        return {**found, self.path: self}


def _variant_label(schema: Mapping[str, Any], index: int) -> str:
    if schema.get("title"):
        return str(schema["title"])
    if "const" in schema:
        return json.dumps(schema["const"])
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for key, sub in props.items():  # a discriminator: {"kind": {"const": "car"}}
            if isinstance(sub, Mapping) and "const" in sub:
                return f"{key}={sub['const']}"
    return "/".join(_types(schema)) or f"option {index + 1}"
