"""Reading Python source as data: its constants, functions, classes and imports, by name.

The part of the Python extractor (``_extract_py``) that follows names: :class:`Package` holds
every file of one server parsed with :mod:`ast` (a tree is built; nothing is executed or
imported), and :func:`value` reads a literal expression, following constants through the
files' ``from ... import`` statements. What cannot be read raises :class:`Unresolved`.
"""

from __future__ import annotations

import ast
import posixpath
import textwrap
from typing import Any

_HINTS = {"read_only_hint": "readOnlyHint", "destructive_hint": "destructiveHint",
          "idempotent_hint": "idempotentHint", "open_world_hint": "openWorldHint",
          "readOnlyHint": "readOnlyHint", "destructiveHint": "destructiveHint",
          "idempotentHint": "idempotentHint", "openWorldHint": "openWorldHint",
          "title": "title"}
class Unresolved(Exception):
    """A value the extractor cannot read from the source text alone."""


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _describe(node: ast.AST) -> str:
    """What kind of expression a node is, with the name it calls if any (never its code)."""
    if isinstance(node, ast.Call):
        return f"a call of {_dotted(node.func) or 'an expression'}"
    return f"{type(node).__name__}"


def _last(node: ast.AST) -> str:
    return _dotted(node).rsplit(".", 1)[-1]


class Module:
    """One parsed file: its constants, functions, classes and imports by local name."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.tree = ast.parse(text, filename=path)
        self.consts: dict[str, list[ast.AST]] = {}
        self.funcs: dict[str, list[ast.AST]] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.imports: dict[str, tuple[str, str, int]] = {}
        for node in self.tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) and node.value else [])
            for target in targets:
                if isinstance(target, ast.Name):
                    self.consts.setdefault(target.id, []).append(node.value)
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (node.module or "", alias.name,
                                                                node.level)
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.funcs.setdefault(node.name, []).append(node)


class Package:
    """Every file read for one server; resolves names across them by their imports."""

    def __init__(self, files: dict[str, str]) -> None:
        self.modules: dict[str, Module] = {}
        self.errors: list[str] = []
        for path, text in sorted(files.items()):
            try:
                self.modules[path] = Module(path, text)
            except (SyntaxError, ValueError) as exc:
                self.errors.append(f"{path}: not parsed ({type(exc).__name__})")

    def module_of(self, mod: Module, module: str, level: int) -> Module | None:
        """The file an ``import`` names, if it is one of the files read."""
        if level:
            base = posixpath.dirname(mod.path)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            stem = posixpath.join(base, *module.split(".")) if module else base
            candidates = [stem + ".py", stem + "/__init__.py"]
            return next((self.modules[c] for c in candidates if c in self.modules), None)
        tail = module.replace(".", "/")
        hits = [m for p, m in self.modules.items()
                if p.endswith("/" + tail + ".py") or p.endswith("/" + tail + "/__init__.py")
                or p in (tail + ".py", tail + "/__init__.py")]
        return hits[0] if len(hits) == 1 else None

    def lookup(self, mod: Module, name: str, kind: str, seen: int = 0) -> tuple[Module, Any]:
        """``(module, node)`` of a constant, function or class visible in ``mod`` as ``name``."""
        if seen > 8:
            raise Unresolved(f"import chain too long for {name}")
        table = {"const": mod.consts, "func": mod.funcs, "class": mod.classes}[kind]
        if name in table:
            found = table[name]
            if isinstance(found, list):
                if len(found) != 1 and not all(ast.dump(f) == ast.dump(found[0])
                                               for f in found):
                    raise Unresolved(f"{name} is defined more than once in {mod.path}")
                return mod, found[0]
            return mod, found
        if name in mod.imports:
            module, orig, level = mod.imports[name]
            other = self.module_of(mod, module, level)
            if other is not None and other is not mod:
                return self.lookup(other, orig, kind, seen + 1)
        raise Unresolved(f"{name} is not defined in the files read ({mod.path})")


def value(pkg: Package, mod: Module, node: ast.AST, depth: int = 0) -> Any:
    """The literal value of an expression, following constants of the files read."""
    if depth > 20:
        raise Unresolved("constant chain too deep")
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        owner, found = pkg.lookup(mod, node.id, "const")
        return value(pkg, owner, found, depth + 1)
    if isinstance(node, ast.Attribute):
        return _enum_member(pkg, mod, node, depth)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(part.value)
            elif isinstance(part, ast.FormattedValue) and part.format_spec is None \
                    and part.conversion == -1:
                got = value(pkg, mod, part.value, depth + 1)
                if not isinstance(got, str | int | float) or isinstance(got, bool):
                    raise Unresolved("f-string part is not a plain value")
                parts.append(str(got))
            else:
                raise Unresolved("f-string with a conversion or format")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = value(pkg, mod, node.left, depth + 1), value(pkg, mod, node.right, depth + 1)
        if type(left) is not type(right) or not isinstance(left, str | list):
            raise Unresolved("+ of values that are not both strings")
        return left + right
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        got = value(pkg, mod, node.operand, depth + 1)
        if isinstance(got, int | float) and not isinstance(got, bool):
            return -got
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [value(pkg, mod, e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unresolved("dict with ** unpacking")
        return {value(pkg, mod, k, depth + 1): value(pkg, mod, v, depth + 1)
                for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.Call):
        fn = _dotted(node.func)
        if fn in ("textwrap.dedent", "dedent") and len(node.args) == 1 and not node.keywords:
            return textwrap.dedent(_text(value(pkg, mod, node.args[0], depth + 1)))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("strip", "rstrip",
                                                                       "lstrip", "join"):
            base = value(pkg, mod, node.func.value, depth + 1)
            if isinstance(base, str) and node.func.attr == "join" and len(node.args) == 1:
                items = value(pkg, mod, node.args[0], depth + 1)
                if isinstance(items, list) and all(isinstance(i, str) for i in items):
                    return base.join(items)
            elif isinstance(base, str) and not node.args:
                return getattr(base, node.func.attr)()
        if _last(node.func) == "ToolAnnotations" and not node.args:
            return {_HINTS[k.arg]: value(pkg, mod, k.value, depth + 1)
                    for k in node.keywords if k.arg in _HINTS}
    raise Unresolved(f"not a literal ({_describe(node)})")


def _enum_member(pkg: Package, mod: Module, node: ast.Attribute, depth: int) -> Any:
    """``Cls.MEMBER`` or ``Cls.MEMBER.value`` of an enum of the files read: its value."""
    if node.attr == "value" and isinstance(node.value, ast.Attribute):
        node = node.value
    if not isinstance(node.value, ast.Name):
        raise Unresolved(f"not a literal ({_describe(node)})")
    owner, cls = pkg.lookup(mod, node.value.id, "class")
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == node.attr:
            return value(pkg, owner, stmt.value, depth + 1)
    raise Unresolved(f"{_dotted(node)} is not a member of an enum read")


def _text(v: Any) -> str:
    if not isinstance(v, str):
        raise Unresolved("expected a string")
    return v
