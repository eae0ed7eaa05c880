"""Validation of a surface: every problem, each with the tool and the field it is in.

``validate(dir)`` never raises for a bad surface; it reports. The problem classes:

* ``name``: missing, not spec-valid (``[A-Za-z0-9_.-]{1,128}``) or not unique;
* ``description``: empty;
* ``parameters``: not a valid JSON Schema, not an object schema, or ``required`` naming a
  property that does not exist;
* ``examples[i]``: not valid against ``parameters``, or using a parameter that does not
  exist;
* ``description`` / ``parameters.<p>.description``: documenting a parameter the schema
  lacks (never document what the server does not have). For a tool the server defines
  (one ``pins.json`` pins) the schema checked against is the server's, not the curated
  copy, and so are its examples; under ``mcp-tool`` a curated ``parameters`` that differs
  from the server's schema beyond descriptions is a problem too;
* ``code``: on a surface whose capability (``mcp-tool``) does not own the implementation,
  not an import path ``module:function``, not in a module ``policy.json`` declares, in the
  standard library, or a module that cannot be found (looked up, never imported);
* the files themselves (``tools.json``, ``policy.json``, ``pins.json``) when they cannot be
  loaded; such a problem names the file and the key path.

Example:
    >>> import tempfile
    >>> from workbench.contracts.surface import save_tools
    >>> d = tempfile.mkdtemp()
    >>> save_tools(d, [{"name": "echo", "description": "",
    ...                 "parameters": {"type": "object", "properties": {}}}])
    >>> report = validate(d)
    >>> report["ok"], report["problems"][0]["field"]
    (False, 'description')
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.audit import phantom_params, tool_texts
from workbench.contracts.names import TOOL_NAME_RE
from workbench.contracts.schemas import jsonschema_validator
from workbench.contracts.surface import code_problem, load_pins, load_policy, load_tools
from workbench.errors import ConfigError
from workbench.surface.code import find_problem
from workbench.surface.edits import schema_changes
from workbench.textsafe import clip
from workbench.tools.registry import MAX_PROBLEM

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
    # Until policy.json loads, judge code as mcp-tool would: refuse it, import nothing.
    policy: dict[str, Any] = {"capability": "mcp-tool", "allow": [], "modules": []}
    served: dict[str, Mapping[str, Any]] = {}
    try:
        policy = load_policy(dir)
    except ConfigError as exc:
        problems.append(_problem(None, exc.key or Path(exc.path).name, str(exc)))
    try:
        served = {p["name"]: p for p in load_pins(dir)}
    except ConfigError as exc:
        problems.append(_problem(None, exc.key or Path(exc.path).name, str(exc)))
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
        pin = served.get(name) if "code" not in entry else None
        problems.extend(_check_tool(entry, policy, pin))
    return {"ok": not problems, "tools": len(tools), "problems": problems}


def _server_schema(pin: Mapping[str, Any]) -> dict[str, Any]:
    schema = pin["wire"].get("inputSchema")
    return dict(schema) if isinstance(schema, Mapping) else {"type": "object", "properties": {}}


def _check_tool(entry: Mapping[str, Any], policy: Mapping[str, Any],
                pin: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    name = entry["name"]
    capability = policy["capability"]
    out = []
    if not entry["description"].strip():
        out.append(_problem(name, "description", "is empty; say what the tool does and when "
                            "to use it"))
    schema = entry["parameters"]
    if pin is not None:
        # The server serves the call with its own schema: that is what must be documented.
        server_schema = _server_schema(pin)
        changes = schema_changes(server_schema, schema)
        if changes and capability == "mcp-tool":
            out.append(_problem(name, "parameters", f"differs from the schema of server "
                                f"{pin['server']!r} (pins.json): {'; '.join(changes)}; under "
                                f"mcp-tool only descriptions and examples may be curated"))
        schema = server_schema
    try:
        validator = jsonschema_validator(schema)
    except ValueError as exc:
        validator = None
        out.append(_problem(name, "parameters", str(exc)))
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
    if validator is not None:
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
                out.append(_problem(name, f"examples[{i}]",
                                    clip(f"{where}: {err.message}", MAX_PROBLEM)))
    if "code" in entry:
        # Allowed first (pure), looked up only then: a refused path is never touched.
        problem = code_problem(entry["code"], policy) or find_problem(entry["code"])
        if problem is not None:
            out.append(_problem(name, "code", problem))
    return out
