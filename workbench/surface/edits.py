"""Policy-checked curation edits: ``apply(dir, edits)``.

An edit is ``{"tool", "kind", "value"}``. The surface's policy (see
:func:`~workbench.contracts.surface.load_policy`) decides which kinds are allowed:

* ``mcp-tool`` (the server is external): ``description``, ``params``, ``examples``,
  ``add``, ``remove``. A ``params`` edit may change only the descriptions and examples of
  parameters that exist; changing a type, ``required`` or an enum, or adding a property,
  is a schema change and is refused, because the server would not honour it.
  An ``add`` may not re-define a tool the server defines (one ``pins.json`` pins): a
  remove + add would otherwise swap the server's schema for one it does not have. Adding
  it back as the server defines it (exposing a hidden tool) is fine; an add that leaves
  ``parameters`` out takes the server's schema from the pin.
* ``tools`` (we own the code): every kind, including ``schema`` and ``code``. A ``code``
  edit points the tool at an in-process implementation by import path
  ``module:function`` in a module ``policy.json`` declares (see
  :mod:`workbench.surface.code`); the text is never executed, evaluated or imported here.

An ``add`` takes the tool's name from ``value.name`` (the ``tool`` key may be left out; a
``tool`` that disagrees with ``value.name`` is refused).

Edits apply in order, each to the result of the ones before. A refused edit changes
nothing and comes back with its reason; when nothing is applied the file is not written,
so its bytes stay as they were. Writes are atomic.

Example:
    >>> import tempfile
    >>> from workbench.contracts.surface import save_tools
    >>> d = tempfile.mkdtemp()
    >>> save_tools(d, [{"name": "echo", "description": "Echo.",
    ...                 "parameters": {"type": "object", "properties": {}}}])
    >>> out = apply(d, [{"tool": "echo", "kind": "description", "value": "Say it back."},
    ...                 {"tool": "echo", "kind": "code", "value": "pkg.mod:echo"}])
    >>> len(out["applied"]), out["refused"][0]["reason"][:30]
    (1, "'code' edits are not allowed u")
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from workbench.contracts.names import TOOL_NAME_RE, TOOL_NAME_RULE
from workbench.contracts.surface import (
    CODE_PATH_RE,
    EDIT_KINDS,
    TOOL_KEYS,
    code_problem,
    load_pins,
    load_policy,
    load_tools,
    save_tools,
)
from workbench.errors import PolicyRefused

__all__ = ["CODE_PATH_RE", "apply", "apply_edits", "schema_changes"]

#: Keys of a parameter's schema that document it without changing what it accepts.
_DOC_KEYS = frozenset({"description", "examples"})


def apply(dir: str | Path, edits: Iterable[Mapping[str, Any]] | None = None
          ) -> dict[str, list[Any]]:
    """Apply ``edits`` to the surface in ``dir`` under its policy.

    Args:
        dir: The surface directory (``tools.json`` is created by a first ``add``).
        edits: ``{"tool", "kind", "value"}`` objects; None (or none) applies nothing.

    Returns:
        ``{"applied": [edit, ...], "refused": [{"edit", "reason"}, ...]}``. The file is
        rewritten atomically only when at least one edit was applied.

    Raises:
        ConfigError: ``tools.json`` or ``policy.json`` cannot be loaded.
    """
    tools = load_tools(dir)
    policy = load_policy(dir)
    if edits is None:
        return {"applied": [], "refused": []}
    new_tools, applied, refused = apply_edits(tools, edits, policy, load_pins(dir))
    if applied:
        save_tools(dir, new_tools)
    return {"applied": applied, "refused": refused}


def apply_edits(tools: list[dict[str, Any]], edits: Iterable[Mapping[str, Any]],
                policy: Mapping[str, Any], pins: Iterable[Mapping[str, Any]] = ()
                ) -> tuple[list[dict[str, Any]], list[Any], list[dict[str, Any]]]:
    """The pure part of :func:`apply`: edits applied to a copy of ``tools``.

    Args:
        tools: The surface's entries.
        edits: The edits, in order.
        policy: As :func:`~workbench.contracts.surface.load_policy` returns it.
        pins: ``pins.json`` entries: the tools the server defines.

    Returns:
        ``(new_tools, applied, refused)``; ``tools`` itself is never modified.
    """
    current = copy.deepcopy(tools)
    served = {p["name"]: p for p in pins}
    applied: list[Any] = []
    refused: list[dict[str, Any]] = []
    for edit in edits:
        try:
            current = _apply_one(current, edit, policy, served)
        except PolicyRefused as exc:
            refused.append({"edit": _jsonable(edit), "reason": str(exc)})
        else:
            applied.append(_jsonable(edit))
    return current, applied, refused


def _jsonable(edit: Any) -> Any:
    return dict(edit) if isinstance(edit, Mapping) else edit


def _apply_one(tools: list[dict[str, Any]], edit: Any, policy: Mapping[str, Any],
               served: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    if not isinstance(edit, Mapping) or set(edit) - {"tool", "kind", "value"} or \
            "kind" not in edit or ("tool" not in edit and edit["kind"] != "add"):
        raise PolicyRefused('an edit is an object {"tool", "kind", "value"} (an add may '
                            'leave out "tool": its value.name names it); fix its shape')
    kind, value = edit["kind"], edit.get("value")
    name = _add_name(edit) if kind == "add" else edit["tool"]
    if kind not in EDIT_KINDS:
        raise PolicyRefused(f"unknown edit kind {kind!r}; allowed kinds: "
                            f"{', '.join(EDIT_KINDS)}")
    capability, allow = policy["capability"], policy["allow"]
    if kind not in allow:
        why = (" (the server is external: its schema and code are its contract, not ours)"
               if capability == "mcp-tool" and kind in ("schema", "code") else "")
        raise PolicyRefused(f"{kind!r} edits are not allowed under {capability}{why}; "
                            f"this surface allows: {', '.join(allow) or 'nothing'}")
    if not isinstance(name, str) or not name:
        raise PolicyRefused('"tool" must name the tool the edit is for (an add names it in '
                            'value.name)')
    tools = copy.deepcopy(tools)
    index = next((i for i, t in enumerate(tools) if t["name"] == name), None)
    if kind == "add":
        return _add(tools, index, name, value, policy, served)
    if index is None:
        known = ", ".join(t["name"] for t in tools) or "none"
        raise PolicyRefused(f"no tool named {name!r} in this surface; tools: {known}")
    tool = tools[index]
    if kind == "remove":
        del tools[index]
    elif kind == "description":
        if not isinstance(value, str) or not value.strip():
            raise PolicyRefused("a description edit needs a non-empty string value")
        tool["description"] = value
    elif kind == "params":
        tool["parameters"] = _params(tool["parameters"], value, capability)
    elif kind == "examples":
        tool["examples"] = _examples(tool["parameters"], value)
        if not tool["examples"]:
            del tool["examples"]
    elif kind == "schema":
        tool["parameters"] = _schema(value)
    elif kind == "code":
        if not isinstance(value, str) or not CODE_PATH_RE.match(value):
            raise PolicyRefused(f"a code edit is an import path 'module:function' (like "
                                f"'mypkg.tools:search'), got {value!r}; code text is never run")
        _check_code(value, policy)
        tool["code"] = value
    return tools


def _add_name(edit: Mapping[str, Any]) -> Any:
    """The name an add edit adds: ``value.name``, or ``tool`` when the value has none."""
    value = edit.get("value")
    named = value.get("name") if isinstance(value, Mapping) else None
    tool = edit.get("tool")
    if named is not None and tool is not None and named != tool:
        raise PolicyRefused(f"the edit's tool {tool!r} and its value.name {named!r} disagree; "
                            f"an add takes its name from value.name, so give one name")
    return named if named is not None else tool


def _same_as_server(entry: dict[str, Any], pin: Mapping[str, Any]) -> None:
    """Refuse an add that re-defines a tool the server defines; fill in its schema."""
    wire = pin["wire"]
    server_schema = wire.get("inputSchema") or {"type": "object", "properties": {}}
    entry.setdefault("parameters", copy.deepcopy(dict(server_schema)))
    changes = schema_changes(server_schema, entry["parameters"]) if isinstance(
        entry["parameters"], Mapping) else ["parameters"]
    for key, wire_key in (("annotations", "annotations"), ("output_schema", "outputSchema")):
        if key in entry and entry[key] != wire.get(wire_key):
            changes.append(key)
    if changes:
        raise PolicyRefused(
            f"{entry['name']!r} is defined by server {pin['server']!r} (pins.json) with "
            f"another contract ({'; '.join(changes)}); under mcp-tool an add cannot re-define "
            f"a server's tool. Add it back as the server defines it (leave parameters out to "
            f"take the pinned schema), or edit its description, params or examples")


def _check_code(code: str, policy: Mapping[str, Any]) -> None:
    problem = code_problem(code, policy)
    if problem is not None:
        raise PolicyRefused(problem)


def _add(tools: list[dict[str, Any]], index: int | None, name: str, value: Any,
         policy: Mapping[str, Any], served: Mapping[str, Mapping[str, Any]]
         ) -> list[dict[str, Any]]:
    capability = policy["capability"]
    if index is not None:
        raise PolicyRefused(f"a tool named {name!r} already exists; edit it, or remove it "
                            f"first")
    if not TOOL_NAME_RE.match(name):
        raise PolicyRefused(f"{name!r} is not a valid tool name; allowed: {TOOL_NAME_RULE}")
    if not isinstance(value, Mapping):
        raise PolicyRefused("an add edit's value is the tool object (description, parameters, "
                            "...)")
    entry = {"name": name, **{k: v for k, v in value.items() if k != "name"}}
    if capability == "mcp-tool" and name in served:
        _same_as_server(entry, served[name])
    unknown = sorted(set(entry) - set(TOOL_KEYS))
    if unknown:
        raise PolicyRefused(f"unknown tool keys {unknown}; allowed: {', '.join(TOOL_KEYS)}")
    if "code" in entry:
        if capability != "tools":
            raise PolicyRefused(f"an added tool may not carry code under {capability}; the "
                                f"server provides the implementation")
        _check_code(entry["code"], policy)
    entry.setdefault("parameters", {"type": "object", "properties": {}})
    if not isinstance(entry.get("description"), str) or not entry["description"].strip():
        raise PolicyRefused("an added tool needs a non-empty description")
    _schema(entry["parameters"])
    if "examples" in entry:
        entry["examples"] = _examples(entry["parameters"], entry["examples"])
    tools.append(entry)
    return tools


def _schema(value: Any) -> dict[str, Any]:
    from workbench.contracts.schemas import jsonschema_validator

    if not isinstance(value, Mapping):
        raise PolicyRefused("a schema is a JSON Schema object")
    try:
        jsonschema_validator(value)
    except ValueError as exc:
        raise PolicyRefused(str(exc)) from None
    return copy.deepcopy(dict(value))


def schema_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """How ``new`` differs from ``old`` beyond parameter descriptions and examples.

    Returns:
        One line per contract change (``type of 'x'``, ``required``, ``new property 'y'``,
        ...); empty when only documentation changed.
    """
    changes = []
    old_props = old.get("properties") or {}
    new_props = new.get("properties") or {}
    for key in sorted(set(old) | set(new)):
        if key != "properties" and old.get(key) != new.get(key):
            changes.append("required" if key == "required" else f"schema key {key!r}")
    for prop in sorted(set(new_props) - set(old_props)):
        changes.append(f"new property {prop!r}")
    for prop in sorted(set(old_props) - set(new_props)):
        changes.append(f"removed property {prop!r}")
    for prop in sorted(set(old_props) & set(new_props)):
        a, b = old_props[prop], new_props[prop]
        if not isinstance(a, Mapping) or not isinstance(b, Mapping):
            if a != b:
                changes.append(f"property {prop!r}")
            continue
        for key in sorted((set(a) | set(b)) - _DOC_KEYS):
            if a.get(key) != b.get(key):
                what = {"type": "type", "enum": "enum"}.get(key, f"{key!r}")
                changes.append(f"{what} of {prop!r}")
    return changes


def _params(old: dict[str, Any], value: Any, capability: str) -> dict[str, Any]:
    """A params edit: a full new schema, or a patch ``{param: {"description", ...}}``."""
    if not isinstance(value, Mapping):
        raise PolicyRefused("a params edit's value is the parameters schema, or "
                            '{"param": {"description": ...}}')
    if "properties" in value or "type" in value:
        new = copy.deepcopy(dict(value))
    else:
        new = copy.deepcopy(old)
        props = new.setdefault("properties", {})
        for param, patch in value.items():
            if isinstance(patch, str):
                patch = {"description": patch}
            if not isinstance(patch, Mapping):
                raise PolicyRefused(f"the patch for parameter {param!r} must be an object or a "
                                    f"description string")
            props[param] = {**props.get(param, {}), **patch}
    changes = schema_changes(old, new)
    if changes and capability != "tools":
        raise PolicyRefused(
            f"schema change refused under {capability}: {'; '.join(changes)}. A params edit "
            f"may change only descriptions and examples of existing parameters; the server "
            f"would not honour a different contract")
    return _schema(new)


def _examples(parameters: Mapping[str, Any], value: Any) -> list[Any]:
    from workbench.contracts.schemas import jsonschema_validator
    from workbench.textsafe import clip

    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise PolicyRefused("examples are a list of argument objects, like [{\"city\": "
                            "\"Oslo\"}]")
    try:
        validator = jsonschema_validator(parameters)
    except ValueError as exc:
        raise PolicyRefused(f"the examples cannot be checked: {exc}") from None
    props = parameters.get("properties") or {}
    for i, example in enumerate(value):
        unknown = sorted(set(example) - set(props))
        if unknown:
            raise PolicyRefused(f"example {i} uses parameters the tool lacks: {unknown}; "
                                f"known: {', '.join(props) or 'none'}")
        errors = sorted(validator.iter_errors(example), key=lambda e: list(e.path))
        if errors:
            raise PolicyRefused(f"example {i} does not match the parameters: "
                                f"{clip(errors[0].message, 300)}")
    return [dict(v) for v in value]
