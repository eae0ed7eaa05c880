"""Coded tools: where a ``code`` entry may point, and the one place it is imported.

A tools.json entry may carry ``code: "module:function"``: the tool then runs in-process
instead of on a server. That is running code named by a file, so it is fenced:

* only under capability ``tools`` (we own the code). Under ``mcp-tool`` the server owns
  the implementation, and a ``code`` entry is an error on every load path (``validate``,
  scenario load, the overlay); it is never imported;
* the module must be one the surface declares as its own in ``policy.json``
  (``"modules": ["myproject.tools"]``, the module or a submodule of it). The standard
  library and builtins can never be declared: ``subprocess:getoutput`` would run a shell
  command built from an agent's arguments;
* the path is an import path, never code: nothing is evaluated, and nothing is imported
  until every check above has passed (:func:`load_function` is the only importer).

A coded tool's annotations come from tools.json, a file anyone can edit, so they are not
believed: its calls go through approval unless the scenario says ``trusted_code: true``
(see :mod:`workbench.surface.approval`).

Example:
    >>> policy = {"capability": "tools", "allow": ["code"], "modules": ["mytools"]}
    >>> code_problem("mytools.weather:forecast", policy) is None
    True
    >>> code_problem("subprocess:getoutput", policy)[:38]
    "module 'subprocess' is not one of the "
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, ToolNotFound

__all__ = [
    "CODE_PATH_RE",
    "MODULE_RE",
    "code_problem",
    "is_stdlib",
    "load_function",
    "module_problem",
    "surface_code_problems",
]

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


def load_function(code: str, policy: Mapping[str, Any], tool: str = ""
                  ) -> Callable[..., dict[str, Any]]:
    """Import and return the function ``code`` names, after :func:`code_problem` passes.

    Raises:
        ToolNotFound: the path is not allowed, cannot be imported, or is not callable.
    """
    problem = code_problem(code, policy)
    label = f"tool {tool!r}: " if tool else ""
    if problem is not None:
        raise ToolNotFound(f"{label}{problem}")
    module, _, attr = code.partition(":")
    try:
        func = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ToolNotFound(f"{label}cannot import {code!r} ({exc}); fix the code path in "
                           f"tools.json") from None
    if not callable(func):
        raise ToolNotFound(f"{label}{code!r} is not callable")
    return func


def find_problem(code: str) -> str | None:
    """Why the (allowed) module of ``code`` cannot be found, or None.

    Looks the module up without running it (a dotted name imports its parent packages,
    which the surface declared as its own by declaring the module).
    """
    module = code.split(":", 1)[0]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    return None if found else f"module {module!r} cannot be found; install it or fix the path"


def surface_code_problems(dir: str | Path) -> list[ConfigError]:
    """Every ``code`` entry of the surface in ``dir`` that may not be loaded, as errors.

    What a scenario load checks (no import, no lookup): files that do not load, and code
    under ``mcp-tool``, outside the declared modules, or in the standard library.
    """
    from workbench.surface.artifact import TOOLS_FILE, load_policy, load_tools

    try:
        tools: Sequence[Mapping[str, Any]] = load_tools(dir)
        policy = load_policy(dir)
    except ConfigError as exc:
        return list(exc.problems)
    path = Path(dir) / TOOLS_FILE
    return [ConfigError(path, f"tools[{i}].code", problem)
            for i, entry in enumerate(tools) if "code" in entry
            if (problem := code_problem(entry["code"], policy)) is not None]
