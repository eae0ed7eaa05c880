"""The surface format: a directory with ``tools.json``, ``policy.json`` and ``pins.json``.

A *surface* is what agents are shown of a toolset. It lives in a directory so it can be
versioned, diffed and edited by people, widgets and optimisers alike::

    tools.json    {"tools": [{name, title?, description, parameters, output_schema?,
                              annotations?, examples?, code?}]}
    policy.json   {"capability": "mcp-tool" | "tools", "allow": [edit kinds],
                   "modules": [module names]}                                 (optional)
    pins.json     {"tools": [{name, server, fingerprint, wire}]}                 (written by import)

This module loads and saves those files. Loading is strict: an unknown key or a wrong type
is a :class:`~workbench.errors.ConfigError` naming the file, the key path and what is
allowed. Saving is atomic (temp file, fsync, rename), so a crash never leaves half a file;
it keeps the file's mode and writes through a symlink to its target.

``modules`` (capability ``tools`` only) lists the modules that hold the surface's own code:
a ``code`` entry may name a function only there, never in the standard library. That fence
is part of the format (:func:`code_problem`, pure: nothing is imported or looked up), so
``validate``, a scenario load and the overlay all apply it; the one importer is
:mod:`workbench.surface.code`.

Example:
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> save_tools(d, [{"name": "echo", "description": "Echo a message.",
    ...                 "parameters": {"type": "object", "properties": {}}}])
    >>> [t["name"] for t in load_tools(d)]
    ['echo']
    >>> load_policy(d)["capability"]
    'mcp-tool'
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.atomic import write_text_atomic
from workbench.errors import ConfigError

__all__ = [
    "CODE_PATH_RE",
    "MODULE_RE",
    "code_problem",
    "is_stdlib",
    "module_problem",
    "surface_code_problems",
    "CAPABILITIES",
    "EDIT_KINDS",
    "PINS_FILE",
    "POLICY_FILE",
    "TOOLS_FILE",
    "TOOL_KEYS",
    "entry_from_wire",
    "entry_to_wire",
    "is_empty",
    "load_pins",
    "load_policy",
    "load_tools",
    "save_pins",
    "save_policy",
    "save_tools",
    "write_json_atomic",
]

TOOLS_FILE = "tools.json"
POLICY_FILE = "policy.json"
PINS_FILE = "pins.json"

#: Every kind of curation edit.
EDIT_KINDS = ("description", "params", "examples", "add", "remove", "schema", "code")

#: What each capability allows by default. ``mcp-tool``: the server is someone else's, so
#: its contract (schema, code) is off limits; ``tools``: we own the code, so everything goes.
CAPABILITIES: dict[str, tuple[str, ...]] = {
    "mcp-tool": ("description", "params", "examples", "add", "remove"),
    "tools": EDIT_KINDS,
}
DEFAULT_CAPABILITY = "mcp-tool"

#: Keys a tools.json entry may have, with the JSON type each must have.
TOOL_KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "title": str,
    "description": str,
    "parameters": dict,
    "output_schema": dict,
    "annotations": dict,
    "examples": list,
    "code": str,
}
_REQUIRED_KEYS = ("name", "description", "parameters")
_PIN_KEYS = {"name": str, "server": str, "fingerprint": str, "wire": dict}

_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list"}


# -- reading ------------------------------------------------------------------------------
def _read_json(path: Path) -> Any:
    from workbench._files import read_text

    # Not UTF-8, empty, a directory: each one line naming the file (read_text says which).
    text = read_text(path, f"{path.name} as JSON", allow_empty=False)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, "", f"not valid JSON: {exc.msg}; fix the syntax",
                          exc.lineno) from exc


def load_tools(dir: str | Path) -> list[dict[str, Any]]:
    """Read ``tools.json`` of a surface directory, strictly.

    A missing file is an empty surface (``[]``), so a new directory can be filled by
    ``add`` edits.

    Raises:
        ConfigError: naming the file, the key path (``tools[2].parameters``) and what
            is allowed.
    """
    path = Path(dir) / TOOLS_FILE
    if not path.exists():
        return []
    data = _read_json(path)
    if not isinstance(data, dict) or set(data) != {"tools"}:
        raise ConfigError(path, "", 'expected an object with exactly one key, "tools" '
                          '(a list of tool objects)')
    tools = data["tools"]
    if not isinstance(tools, list):
        raise ConfigError(path, "tools", "must be a list of tool objects")
    for i, entry in enumerate(tools):
        _check_entry(path, f"tools[{i}]", entry)
    return tools


def _check_entry(path: Path, key: str, entry: Any) -> None:
    if not isinstance(entry, dict):
        raise ConfigError(path, key, "must be an object with name, description and parameters")
    for name, value in entry.items():
        expected = TOOL_KEYS.get(name)
        if expected is None:
            raise ConfigError(path, f"{key}.{name}", f"unknown key; allowed keys: "
                              f"{', '.join(TOOL_KEYS)}")
        if not isinstance(value, expected):
            raise ConfigError(path, f"{key}.{name}", f"must be {_TYPE_NAMES[expected]}, got "
                              f"{type(value).__name__}")
    for name in _REQUIRED_KEYS:
        if name not in entry:
            raise ConfigError(path, f"{key}.{name}", "is required (every tool needs name, "
                              "description and parameters)")


def load_policy(dir: str | Path) -> dict[str, Any]:
    """The surface's policy: ``{"capability", "allow", "modules"}``.

    A missing ``policy.json`` means capability ``mcp-tool`` with its default allow list.
    ``allow`` may narrow the capability's kinds, never widen them. ``modules`` (default
    ``[]``) may be set only under ``tools``; it never names the standard library.

    Raises:
        ConfigError: unknown key, unknown capability, an allowed kind the capability
            does not permit, or a module that cannot be declared.
    """
    path = Path(dir) / POLICY_FILE
    if not path.exists():
        return {"capability": DEFAULT_CAPABILITY, "allow": list(CAPABILITIES[DEFAULT_CAPABILITY]),
                "modules": []}
    data = _read_json(path)
    if not isinstance(data, dict):
        raise ConfigError(path, "", 'expected an object like {"capability": "mcp-tool", '
                          '"allow": ["description", ...]}')
    for key in data:
        if key not in ("capability", "allow", "modules"):
            raise ConfigError(path, key, "unknown key; allowed keys: capability, allow, "
                              "modules")
    capability = data.get("capability", DEFAULT_CAPABILITY)
    if capability not in CAPABILITIES:
        raise ConfigError(path, "capability", f"{capability!r} is not a capability; allowed: "
                          f"{', '.join(CAPABILITIES)}")
    permitted = CAPABILITIES[capability]
    allow = data.get("allow", list(permitted))
    if not isinstance(allow, list) or not all(isinstance(k, str) for k in allow):
        raise ConfigError(path, "allow", f"must be a list of edit kinds from: "
                          f"{', '.join(permitted)}")
    for i, kind in enumerate(allow):
        if kind not in permitted:
            hint = (' (set "capability": "tools" if you own the tool\'s code)'
                    if kind in EDIT_KINDS else "")
            raise ConfigError(path, f"allow[{i}]", f"{kind!r} is not allowed under "
                              f"{capability}; allowed: {', '.join(permitted)}{hint}")
    modules = _load_modules(path, capability, data.get("modules", []))
    return {"capability": capability, "allow": list(allow), "modules": modules}


def _load_modules(path: Path, capability: str, modules: Any) -> list[str]:
    from workbench.contracts.surface import module_problem

    if not isinstance(modules, list):
        raise ConfigError(path, "modules", "must be a list of module names (like "
                          '["myproject.tools"]) that hold this surface\'s own code')
    if modules and capability != "tools":
        raise ConfigError(path, "modules", f"declares code modules under {capability}, where "
                          f"the server owns the code; use capability tools, or drop modules")
    for i, module in enumerate(modules):
        problem = module_problem(module)
        if problem is not None:
            raise ConfigError(path, f"modules[{i}]", problem)
    return list(modules)


def load_pins(dir: str | Path) -> list[dict[str, Any]]:
    """Read ``pins.json`` (``[]`` when there is none).

    Raises:
        ConfigError: the file is not ``{"tools": [{name, server, fingerprint, wire}]}``.
    """
    path = Path(dir) / PINS_FILE
    if not path.exists():
        return []
    data = _read_json(path)
    if not isinstance(data, dict) or set(data) != {"tools"} or not isinstance(
            data["tools"], list):
        raise ConfigError(path, "", 'expected {"tools": [...]}; re-create it with '
                          '`workbench surface import`')
    for i, pin in enumerate(data["tools"]):
        if not isinstance(pin, dict) or set(pin) != set(_PIN_KEYS):
            raise ConfigError(path, f"tools[{i}]", f"a pin has exactly the keys "
                              f"{', '.join(_PIN_KEYS)}")
        for key, expected in _PIN_KEYS.items():
            if not isinstance(pin[key], expected):
                raise ConfigError(path, f"tools[{i}].{key}", f"must be "
                                  f"{_TYPE_NAMES[expected]}")
    return data["tools"]


def is_empty(dir: str | Path) -> bool:
    """True when the surface has no tools (no ``tools.json``, or an empty list)."""
    return not load_tools(dir)


# -- writing ------------------------------------------------------------------------------
def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write ``data`` as pretty JSON to ``path`` atomically.

    Readers see the old file or the new one, never half of either; the file keeps its
    mode, and a symlink stays a link to the rewritten target (see :mod:`workbench.atomic`).
    """
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"  # fails before any write
    write_text_atomic(path, text)


def save_tools(dir: str | Path, tools: Sequence[Mapping[str, Any]]) -> None:
    """Write ``tools.json`` atomically (entries are checked as :func:`load_tools` would)."""
    path = Path(dir) / TOOLS_FILE
    for i, entry in enumerate(tools):
        _check_entry(path, f"tools[{i}]", entry)
    write_json_atomic(path, {"tools": [dict(t) for t in tools]})


def save_policy(dir: str | Path, capability: str = DEFAULT_CAPABILITY,
                allow: Sequence[str] | None = None, modules: Sequence[str] = ()) -> None:
    """Write ``policy.json`` atomically, then check it by loading it back."""
    data: dict[str, Any] = {"capability": capability}
    if allow is not None:
        data["allow"] = list(allow)
    if modules:
        data["modules"] = list(modules)
    write_json_atomic(Path(dir) / POLICY_FILE, data)
    load_policy(dir)


def save_pins(dir: str | Path, pins: Sequence[Mapping[str, Any]]) -> None:
    """Write ``pins.json`` atomically, sorted by server and name."""
    ordered = sorted((dict(p) for p in pins), key=lambda p: (p["server"], p["name"]))
    write_json_atomic(Path(dir) / PINS_FILE, {"tools": ordered})


# -- wire <-> entry -----------------------------------------------------------------------
def entry_from_wire(wire: Mapping[str, Any]) -> dict[str, Any]:
    """A tools.json entry from an MCP ``tools/list`` item (camelCase wire fields)."""
    entry: dict[str, Any] = {"name": wire["name"]}
    if wire.get("title"):
        entry["title"] = wire["title"]
    entry["description"] = wire.get("description") or ""
    entry["parameters"] = dict(wire.get("inputSchema") or {"type": "object", "properties": {}})
    if wire.get("outputSchema"):
        entry["output_schema"] = dict(wire["outputSchema"])
    if wire.get("annotations"):
        entry["annotations"] = dict(wire["annotations"])
    return entry


def entry_to_wire(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The MCP wire form of a tools.json entry (examples and code are ours, not MCP's)."""
    wire: dict[str, Any] = {"name": entry["name"]}
    if entry.get("title"):
        wire["title"] = entry["title"]
    wire["description"] = entry.get("description", "")
    wire["inputSchema"] = dict(entry.get("parameters") or {"type": "object", "properties": {}})
    if entry.get("output_schema"):
        wire["outputSchema"] = dict(entry["output_schema"])
    if entry.get("annotations"):
        wire["annotations"] = dict(entry["annotations"])
    return wire


# -- the code fence: where a ``code`` entry may point (pure: nothing is imported) ------
#: ``module.sub:function``: an import path, never code (``\\Z``: no trailing newline).
CODE_PATH_RE = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:"
                          r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: A dotted module name, as ``policy.json``'s ``modules`` lists it.
MODULE_RE = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")

_STDLIB = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names) | {
    "builtins", "__main__"}


def is_stdlib(module: str) -> bool:
    """True when ``module`` is (in) the standard library or a builtin module."""
    return module.split(".", 1)[0] in _STDLIB


def module_problem(module: Any) -> str | None:
    """Why ``module`` cannot be declared in ``policy.json``'s ``modules``, or None."""
    if not isinstance(module, str) or not MODULE_RE.match(module):
        return f"{module!r} is not a module name (like 'myproject.tools')"
    if is_stdlib(module):
        return (f"{module!r} is the standard library or a builtin, never a surface's own "
                f"code; declare the modules of your project that hold its tools")
    return None


def code_problem(code: Any, policy: Mapping[str, Any]) -> str | None:
    """Why ``code`` may not be used under ``policy``, or None when it may.

    Pure: nothing is imported or looked up.
    """
    capability = policy.get("capability", "mcp-tool")
    if capability != "tools":
        return (f"code is set but the capability is {capability}: the server owns the "
                f"implementation and a code entry is never loaded; remove it, or use "
                f"capability tools for tools whose code you own")
    if not isinstance(code, str) or not CODE_PATH_RE.match(code):
        return f"{code!r} is not an import path 'module:function'; code text is never run"
    module = code.split(":", 1)[0]
    if is_stdlib(module):
        return (f"{code!r} names the standard library or a builtin; a code path must name "
                f"a function in a module policy.json declares under modules")
    declared = list(policy.get("modules") or ())
    if not any(module == m or module.startswith(m + ".") for m in declared):
        return (f"module {module!r} is not one of the modules policy.json declares as this "
                f"surface's own ({', '.join(declared) or 'none declared'}); add it to "
                f"\"modules\" if it is your code")
    return None


def surface_code_problems(dir: str | Path) -> list[ConfigError]:
    """Every ``code`` entry of the surface in ``dir`` that may not be loaded, as errors.

    What a scenario load checks (no import, no lookup): files that do not load, and code
    under ``mcp-tool``, outside the declared modules, or in the standard library.
    """
    try:
        tools: Sequence[Mapping[str, Any]] = load_tools(dir)
        policy = load_policy(dir)
    except ConfigError as exc:
        return list(exc.problems)
    path = Path(dir) / TOOLS_FILE
    return [ConfigError(path, f"tools[{i}].code", problem)
            for i, entry in enumerate(tools) if "code" in entry
            if (problem := code_problem(entry["code"], policy)) is not None]
