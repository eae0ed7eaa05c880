"""Validation of a surface: every problem, each with the tool and the field it is in.

``validate(dir)`` never raises for a bad surface; it reports. The problem classes:

* ``name``: missing, not spec-valid (``[A-Za-z0-9_.-]{1,128}``) or not unique;
* ``description``: empty;
* ``parameters``: not a valid JSON Schema, not an object schema, or ``required`` naming a
  property that does not exist;
* ``examples[i]``: not valid against ``parameters``, or using a parameter that does not
  exist;
* ``description`` / ``parameters.<p>.description``: documenting a parameter the schema
  lacks (never document what the server does not have);
* ``code``: not an import path ``module:function``, a module that cannot be found, or
  code on a surface whose capability (``mcp-tool``) does not own the implementation;
* the files themselves (``tools.json``, ``policy.json``, ``pins.json``) when they cannot be
  loaded; such a problem names the file and the key path.

Example:
    >>> import tempfile
    >>> from workbench.surface.artifact import save_tools
    >>> d = tempfile.mkdtemp()
    >>> save_tools(d, [{"name": "echo", "description": "",
    ...                 "parameters": {"type": "object", "properties": {}}}])
    >>> report = validate(d)
    >>> report["ok"], report["problems"][0]["field"]
    (False, 'description')
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.surface.artifact import load_pins, load_policy, load_tools
from workbench.surface.audit import phantom_params, tool_texts
from workbench.surface.edits import CODE_PATH_RE
from workbench.tools.registry import TOOL_NAME_RE

__all__ = ["validate"]


def _problem(tool: str | None, field: str, problem: str) -> dict[str, Any]:
    return {"tool": tool, "field": field, "problem": problem}


def validate(dir: str | Path) -> dict[str, Any]:
    """Check a surface directory.

    Returns:
        ``{"ok": bool, "tools": <number of tools>, "problems": [{"tool", "field",
        "problem"}, ...]}``; ``ok`` is True exactly when there are no problems.
    """
    problems: list[dict[str, Any]] = []
    try:
        tools = load_tools(dir)
    except ConfigError as exc:
        return {"ok": False, "tools": 0,
                "problems": [_problem(None, exc.key or Path(exc.path).name, str(exc))]}
    capability = "mcp-tool"
    for loader in (load_policy, load_pins):
        try:
            result = loader(dir)
        except ConfigError as exc:
            problems.append(_problem(None, exc.key or Path(exc.path).name, str(exc)))
            continue
        if loader is load_policy:
            capability = result["capability"]
    seen: dict[str, int] = {}
    for i, entry in enumerate(tools):
        name = entry["name"]
        if not TOOL_NAME_RE.match(name):
            problems.append(_problem(name, "name", f"tools[{i}]: {name!r} is not a valid tool "
                                     f"name; allowed: 1 to 128 characters from A-Z a-z 0-9 _ . -"))
        if name in seen:
            problems.append(_problem(name, "name", f"tools[{i}]: duplicate of tools[{seen[name]}]; "
                                     f"tool names must be unique"))
        seen.setdefault(name, i)
        problems.extend(_check_tool(entry, capability))
    return {"ok": not problems, "tools": len(tools), "problems": problems}


def _check_tool(entry: Mapping[str, Any], capability: str) -> list[dict[str, Any]]:
    import jsonschema.exceptions
    import jsonschema.validators

    name = entry["name"]
    out = []
    if not entry["description"].strip():
        out.append(_problem(name, "description", "is empty; say what the tool does and when "
                            "to use it"))
    schema = entry["parameters"]
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    schema_ok = True
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        schema_ok = False
        where = "/".join(str(p) for p in exc.absolute_path)
        out.append(_problem(name, "parameters", f"not a valid JSON Schema"
                            f"{' at ' + where if where else ''}: {exc.message}"))
    if schema.get("type", "object") != "object":
        out.append(_problem(name, "parameters", f"type is {schema.get('type')!r}; tool "
                            f"parameters are an object schema (type: object)"))
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    for req in required:
        if req not in props:
            out.append(_problem(name, "parameters.required", f"requires {req!r}, which is not a "
                                f"property; known: {', '.join(props) or 'none'}"))
    for field, text in tool_texts(entry):
        if field == "title":
            continue
        for missing, _, _ in phantom_params(text, props):
            out.append(_problem(name, field, f"documents parameter {missing!r}, which the "
                                f"schema lacks; describe only parameters the server has"))
    if schema_ok:
        validator = cls(schema)
        for i, example in enumerate(entry.get("examples") or []):
            if not isinstance(example, dict):
                out.append(_problem(name, f"examples[{i}]", "an example is an object of "
                                    "arguments"))
                continue
            for key in sorted(set(example) - set(props)):
                out.append(_problem(name, f"examples[{i}]", f"uses parameter {key!r}, which the "
                                    f"schema lacks"))
            for err in sorted(validator.iter_errors(example), key=lambda e: list(e.path)):
                where = "/".join(str(p) for p in err.absolute_path) or "arguments"
                out.append(_problem(name, f"examples[{i}]", f"{where}: {err.message}"))
    if "code" in entry:
        out.extend(_check_code(name, entry["code"], capability))
    return out


def _check_code(name: str, code: str, capability: str) -> list[dict[str, Any]]:
    if capability != "tools":
        return [_problem(name, "code", f"code is set but the capability is {capability}: the "
                         f"server owns the implementation; remove it or use capability tools")]
    if not CODE_PATH_RE.match(code):
        return [_problem(name, "code", f"{code!r} is not an import path 'module:function'")]
    module = code.split(":", 1)[0]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return [_problem(name, "code", f"module {module!r} cannot be found; install it or fix "
                         f"the path")]
    return []
