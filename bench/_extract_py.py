"""Reading MCP tool definitions out of Python server source, without running it.

The source is parsed with :mod:`ast` (parsing builds a tree; nothing in it is executed or
imported). Three registration shapes are read:

- a function decorated ``@<anything>.tool`` / ``@<anything>.tool(...)`` (FastMCP in the
  MCP SDK, the standalone ``fastmcp``, and their look-alikes);
- ``<anything>.tool(...)(fn)`` where ``fn`` is a function or ``self.method`` of the files
  read;
- ``Tool(name=..., description=..., inputSchema={...})`` / ``types.Tool(...)`` with literal
  arguments (the SDK's low-level server).

The description is the decorator's ``description=`` or the function's docstring, dedented as
``inspect.cleandoc`` does. The input schema is what pydantic would derive from the signature,
as far as it can be read: ``ctx``/``Context`` parameters dropped, ``Field(...)`` and
``Annotated[..., Field(...)]`` read for description, default and bounds, classes of the same
files (enums, pydantic models, TypedDicts) inlined. Property titles pydantic adds are not
generated (they carry nothing a writer wrote). Anything that cannot be read reliably raises
:class:`Unresolved`: a tool whose name or description is unreadable is skipped; a schema that is
unreadable is stored as ``{"type": "object"}`` and marked ``not extracted``.
"""

from __future__ import annotations

import ast
from typing import Any

from _extract_pyschema import _signature_schema
from _extract_pysrc import _HINTS, Module, Package, Unresolved, _dotted, _last, _text, value


def _decorator_tool(pkg: Package, mod: Module, call: ast.Call | None,
                    fn: ast.FunctionDef | ast.AsyncFunctionDef, drop: set[str]
                    ) -> tuple[dict[str, Any], str | None]:
    """The wire tool of a registration, and ``None`` or why its schema was not read."""
    kw = {k.arg: k.value for k in (call.keywords if call else []) if k.arg}
    name: Any = fn.name
    if call and call.args and not isinstance(call.args[0], ast.Lambda):
        name = value(pkg, mod, call.args[0])
    if "name" in kw:
        name = value(pkg, mod, kw["name"])
    if not isinstance(name, str) or not name:
        raise Unresolved("tool name is not a string")
    tool: dict[str, Any] = {"name": name}
    if "title" in kw:
        tool["title"] = _text(value(pkg, mod, kw["title"]))
    desc = kw.get("description")
    if desc is not None and _dotted(desc).endswith(".__doc__"):
        desc = None
    text = _text(value(pkg, mod, desc)) if desc is not None else ast.get_docstring(fn, True)
    if text:
        tool["description"] = text
    extra_drop = set(drop)
    if "exclude_args" in kw:
        extra_drop |= set(value(pkg, mod, kw["exclude_args"]))
    note = None
    try:
        tool["inputSchema"] = _signature_schema(pkg, mod, fn, extra_drop)
    except Unresolved as exc:
        tool["inputSchema"], note = {"type": "object"}, str(exc)
    if "annotations" in kw and not (isinstance(kw["annotations"], ast.Constant)
                                    and kw["annotations"].value is None):
        try:
            ann = value(pkg, mod, kw["annotations"])
            if not isinstance(ann, dict):
                raise Unresolved("annotations are not a mapping")
        except Unresolved as exc:
            tool["annotations_note"] = f"not extracted: {exc}"
            ann = {}
        ann = {_HINTS[k]: v for k, v in ann.items() if k in _HINTS and v is not None}
        if ann:
            tool["annotations"] = ann
    return tool, note


def _is_tool_call(node: ast.AST, attr: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == attr


def _is_tool_decorator(dec: ast.AST, attr: str, names: set[str]) -> bool:
    if _is_tool_call(dec, attr) or (isinstance(dec, ast.Attribute) and dec.attr == attr):
        return True
    target = dec.func if isinstance(dec, ast.Call) else dec
    return _last(target) in names


def _method(mod: Module, ref: ast.AST, near: ast.AST) -> ast.AST | None:
    """The function ``ref`` (a name or ``self.name``) points at in ``mod``."""
    if isinstance(ref, ast.Attribute) and isinstance(ref.value, ast.Name) \
            and ref.value.id == "self":
        for cls in ast.walk(mod.tree):
            if isinstance(cls, ast.ClassDef) and any(n is near for n in ast.walk(cls)):
                for stmt in cls.body:
                    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) \
                            and stmt.name == ref.attr:
                        return stmt
    return None


def extract(files: dict[str, str], attr: str = "tool", drop: set[str] | None = None,
            decorators: set[str] | None = None
            ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Tool records (``tool``, ``file``, ``schema`` note) and skips (``name``, ``reason``).

    Args:
        files: ``{path: source text}`` of one server.
        attr: The method name that registers a tool (``@mcp.tool``).
        drop: Parameters a wrapper decorator removes from the signature.
        decorators: Plain decorator names that register a tool (``@my_tool(...)``).
    """
    pkg = Package(files)
    decorators = decorators or set()
    drop = drop or set()
    tools: list[dict[str, Any]] = []
    skipped = [{"name": "", "file": e.split(":")[0], "reason": e} for e in pkg.errors]

    def add(mod: Module, call: ast.Call | None, fn: Any, where: ast.AST) -> None:
        label = getattr(fn, "name", "?")
        try:
            tool, note = _decorator_tool(pkg, mod, call, fn, drop)
        except (Unresolved, ValueError, SyntaxError) as exc:
            skipped.append({"name": label, "file": mod.path, "line": where.lineno,
                            "reason": str(exc)})
            return
        tools.append({"tool": tool, "file": mod.path, "line": where.lineno, "schema": note})

    for mod in pkg.modules.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for dec in node.decorator_list:
                    if _is_tool_decorator(dec, attr, decorators):
                        add(mod, dec if isinstance(dec, ast.Call) else None, node, node)
            elif _is_tool_call(node, attr) and node.args and isinstance(
                    node.args[0], ast.Name | ast.Attribute):
                # <server>.tool(fn, name=...): the function itself as the first argument
                ref = node.args[0]
                fn, mod_for = _method(mod, ref, node), mod
                if fn is None and isinstance(ref, ast.Name):
                    try:
                        mod_for, fn = pkg.lookup(mod, ref.id, "func")
                    except Unresolved:
                        fn = None
                if fn is not None:
                    add(mod_for, ast.Call(func=node.func, args=[], keywords=node.keywords),
                        fn, node)
            elif isinstance(node, ast.Call) and _is_tool_call(node.func, attr) \
                    and len(node.args) == 1:
                ref = node.args[0]
                fn = _method(mod, ref, node)
                target = ref
                if fn is None and isinstance(ref, ast.Attribute) \
                        and isinstance(ref.value, ast.Name) and ref.value.id in mod.imports:
                    module, orig, level = mod.imports[ref.value.id]
                    other = pkg.module_of(mod, f"{module}.{orig}" if module else orig, level)
                    if other is not None and len(other.funcs.get(ref.attr, [])) == 1:
                        fn, mod_for = other.funcs[ref.attr][0], other
                        add(mod_for, node.func, fn, node)
                        continue
                if fn is None and isinstance(target, ast.Name):
                    try:
                        owner, fn = pkg.lookup(mod, ref.id, "func")
                        mod_for = owner
                    except Unresolved as exc:
                        skipped.append({"name": ref.id, "file": mod.path, "line": node.lineno,
                                        "reason": str(exc)})
                        continue
                else:
                    mod_for = mod
                if fn is None:
                    skipped.append({"name": _dotted(ref) or "?", "file": mod.path,
                                    "line": node.lineno, "reason": "function not found"})
                    continue
                add(mod_for, node.func, fn, node)
            elif isinstance(node, ast.Call) and _dotted(node.func).endswith("Tool.from_function") \
                    and node.args and isinstance(node.args[0], ast.Name):
                try:  # Tool.from_function(fn, name=..., description=...)
                    owner, fn = pkg.lookup(mod, node.args[0].id, "func")
                except Unresolved as exc:
                    skipped.append({"name": node.args[0].id, "file": mod.path,
                                    "line": node.lineno, "reason": str(exc)})
                    continue
                add(owner, ast.Call(func=node.func, args=[], keywords=node.keywords), fn, node)
            elif isinstance(node, ast.Call) and _last(node.func) == "Tool" and node.keywords:
                _literal_tool(pkg, mod, node, tools, skipped)
    return tools, skipped


def _literal_tool(pkg: Package, mod: Module, node: ast.Call, tools: list[dict[str, Any]],
                  skipped: list[dict[str, Any]]) -> None:
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    if "name" not in kw or not ({"inputSchema", "input_schema"} & set(kw)):
        return
    try:
        tool: dict[str, Any] = {"name": _text(value(pkg, mod, kw["name"]))}
        for key, wire in (("title", "title"), ("description", "description")):
            if key in kw:
                tool[wire] = _text(value(pkg, mod, kw[key]))
    except Unresolved as exc:
        skipped.append({"name": _dotted(kw["name"]) or "?", "file": mod.path,
                        "line": node.lineno, "reason": str(exc)})
        return
    note = None
    for key, wire in (("inputSchema", "inputSchema"), ("input_schema", "inputSchema"),
                      ("outputSchema", "outputSchema"), ("output_schema", "outputSchema"),
                      ("annotations", "annotations")):
        if key in kw:
            try:
                got = value(pkg, mod, kw[key])
                if not isinstance(got, dict):
                    raise Unresolved(f"{key} is not a mapping")
                tool[wire] = got
            except Unresolved as exc:
                if wire == "inputSchema":
                    tool[wire], note = {"type": "object"}, str(exc)
    tools.append({"tool": tool, "file": mod.path, "line": node.lineno, "schema": note})
