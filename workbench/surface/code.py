"""Coded tools: the one place a ``code`` entry is imported, once the fence lets it through.

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

The checks themselves are pure and part of the surface format
(:func:`workbench.contracts.surface.code_problem`), so a config load applies them without
importing anything; this module adds the two steps that touch the import system.

A coded tool's annotations come from tools.json, a file anyone can edit, so they are not
believed: its calls go through approval unless the scenario says ``trusted_code: true``
(see :mod:`workbench.surface.approval`).

Example:
    >>> policy = {"capability": "tools", "allow": ["code"], "modules": ["mytools"]}
    >>> try:
    ...     load_function("subprocess:getoutput", policy)
    ... except ToolNotFound as exc:
    ...     print(str(exc)[:41])
    module 'subprocess' is not one of the mod
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any

from workbench.contracts.surface import code_problem
from workbench.errors import ToolNotFound

__all__ = ["find_problem", "load_function"]


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
