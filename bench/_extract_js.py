"""Reading values out of TypeScript/JavaScript source text: declarations, imports, literals.

Files are tokenized by ``_extract_lex`` and parsed by ``_extract_parse`` (nothing is
executed). :class:`Project` holds one server's files: each file's ``const``/``let``/``var``
and ``enum`` declarations, class field initializers and ``import``/``export ... from``
statements. :meth:`Project.resolve` follows an identifier or member access to the node it
stands for (through imports, across files, and through a helper arrow function whose body does
not use its parameters); :meth:`Project.value` evaluates a literal as JavaScript would:
strings, template literals, ``+``, ``dedent``-style tags, ``[...].join(sep)``,
``Object.keys/values``. What cannot be read raises :class:`Unresolved`.
"""

from __future__ import annotations

import posixpath
import textwrap
from typing import Any

from _extract_lex import LexError, tokenize_lines
from _extract_parse import Parser

#: How many identifiers may be followed in a chain (a constant naming a constant ...).
MAX_DEPTH = 40
HINTS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_SCHEMA_KEYS = ("inputSchema", "parameters", "schema", "inputShape", "argsSchema", "input",
                "paramsSchema", "args", "argsShape")

class Unresolved(Exception):
    """A value the extractor cannot read from the source text alone."""


class File:
    """One file's tokens, declarations and imports."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.toks, self.newlines = tokenize_lines(text)
        self.decls: dict[str, list[tuple]] = {}
        self.imports: dict[str, tuple[str, str]] = {}  # local -> (module spec, name | '*')
        self.reexports: list[tuple[str, str, str]] = []  # (exported, spec, name | '*')
        self.classes: list[tuple[str, dict[str, tuple], int]] = []  # name, fields, token
        self._scan()

    def _scan(self) -> None:
        t = self.toks
        for i, (kind, val, _) in enumerate(t):
            if kind != "id":
                continue
            if val in ("const", "let", "var") and i + 1 < len(t) and t[i + 1][0] == "id":
                p = Parser(t, newlines=self.newlines)
                p.pos = i + 2
                if p.at(":"):  # a type annotation: skip to the '=' at its depth
                    p.pos += 1
                    p.skip_annotation()
                if p.at("="):
                    p.pos += 1
                    try:
                        self.decls.setdefault(t[i + 1][1], []).append(p.expr())
                    except (SyntaxError, IndexError):
                        self.decls.setdefault(t[i + 1][1], []).append(("opaque",))
            elif val == "class" and i + 1 < len(t) and t[i + 1][0] == "id":
                self._class(i)
            elif val == "enum" and i + 2 < len(t) and t[i + 1][0] == "id" \
                    and t[i + 2][1] == "{":
                self.decls.setdefault(t[i + 1][1], []).append(self._enum(i + 2))
            elif val == "import" and (i == 0 or t[i - 1][1] in (";", "}", ")")
                                      or t[i - 1][0] in ("str", "id")):
                self._import(i + 1)
            elif val == "export" and i + 1 < len(t) and t[i + 1][1] in ("{", "*"):
                self._reexport(i + 1)
            elif val == "export" and i + 2 < len(t) and t[i + 1][1] == "default":
                p = Parser(t, newlines=self.newlines)
                p.pos = i + 2
                try:
                    self.decls.setdefault("default", []).append(p.expr())
                except SyntaxError:
                    pass

    def _class(self, i: int) -> None:
        """A class's field initializers (``static toolName = "x"``) as ``self.classes``."""
        t, k = self.toks, i + 2
        while k < len(t) and t[k][1] != "{":
            k += 1
        if k >= len(t):
            return
        p = Parser(t, newlines=self.newlines)
        try:
            end = p.match(k)
        except SyntaxError:
            return
        fields: dict[str, tuple] = {}
        k += 1
        modifiers = {"static", "public", "private", "protected", "override", "readonly",
                     "declare", "abstract"}
        while k < end:
            kind, val, _ = t[k]
            if kind == "p" and val in ("(", "[", "{"):
                k = p.match(k) + 1
                continue
            if kind == "id" and val in modifiers:
                k += 1
                continue
            if kind == "id" and k + 1 < end and t[k + 1][1] in ("=", ":", "?", "!"):
                p.pos = k + 1
                while p.at("?") or p.at("!"):
                    p.pos += 1
                if p.at(":"):
                    p.pos += 1
                    p.skip_annotation()
                if p.at("="):
                    p.pos += 1
                    try:
                        fields[val] = p.expr()
                    except (SyntaxError, IndexError):
                        fields[val] = ("opaque",)
                k = max(p.pos, k + 1)
                continue
            k += 1
        self.classes.append((t[i + 1][1], fields, i))

    def _enum(self, j: int) -> tuple:
        p = Parser(self.toks, newlines=self.newlines)
        p.pos = j + 1
        props, nxt = [], 0
        while not p.at("}") and p.peek()[0] != "eof":
            key = str(p.peek()[1])
            p.pos += 1
            if p.at("="):
                p.pos += 1
                node = p.expr()
            else:
                node = ("num", nxt)
            if node[0] == "num" and isinstance(node[1], int):
                nxt = node[1] + 1
            props.append((key, node))
            if p.at(","):
                p.pos += 1
        return ("obj", props)

    def _names(self, j: int) -> tuple[list[tuple[str, str]], int]:
        """``[(name, local)]`` of ``{ a, b as c, type d }`` at token ``j``; index after it."""
        t, out, k = self.toks, [], j + 1
        while k < len(t) and t[k][1] != "}":
            if t[k][1] == "type" and t[k + 1][0] == "id" and t[k + 1][1] not in (",", "as"):
                k += 1
            if t[k][0] in ("id", "str"):
                name = local = t[k][1]
                if t[k + 1][1] == "as":
                    local = t[k + 2][1]
                    k += 2
                out.append((name, local))
            k += 1
        return out, k + 1

    def _import(self, k: int) -> None:
        t = self.toks
        if k < len(t) and t[k][1] == "type":
            return
        names: list[tuple[str, str]] = []
        while k < len(t) and t[k][1] != "from" and t[k][0] != "str":
            kind, val, _ = t[k]
            if val == "{":
                got, k = self._names(k)
                names += got
                continue
            if val == "*" and t[k + 1][1] == "as":
                names.append(("*", t[k + 2][1]))
                k += 3
                continue
            if kind == "id":
                names.append(("default", val))
            k += 1
            if len(names) > 200:
                return
        if k < len(t) and t[k][1] == "from":
            k += 1
        if k < len(t) and t[k][0] == "str":
            for name, local in names:
                self.imports[local] = (t[k][1], name)

    def _reexport(self, k: int) -> None:
        t = self.toks
        if t[k][1] == "*":
            k += 1
            if t[k][1] == "as":
                k += 2
            if t[k][1] == "from" and t[k + 1][0] == "str":
                self.reexports.append(("*", t[k + 1][1], "*"))
            return
        names, k = self._names(k)
        if k < len(t) and t[k][1] == "from" and t[k + 1][0] == "str":
            for name, local in names:
                self.reexports.append((local, t[k + 1][1], name))
        else:
            for name, local in names:  # export { a as b }: b names a here
                if local != name:
                    self.decls.setdefault(local, []).append(("id", name))


class Project:
    """Every file read for one server; follows identifiers across their imports."""

    def __init__(self, files: dict[str, str], zod_names: set[str],
                 aliases: dict[str, str] | None = None) -> None:
        self.files: dict[str, File] = {}
        self.errors: list[str] = []
        self.zod_names = zod_names
        self.aliases = aliases or {}  # a monorepo's package names -> their folders
        for path, text in sorted(files.items()):
            try:
                self.files[path] = File(path, text)
            except (LexError, SyntaxError, IndexError, ValueError) as exc:
                self.errors.append(f"{path}: not tokenized ({exc})")

    def module(self, f: File, spec: str) -> File | None:
        for alias, folder in self.aliases.items():
            if spec.startswith(alias):
                spec = "/" + folder + spec[len(alias):]
                break
        if spec.startswith("/"):
            base = posixpath.normpath(spec[1:])
        elif spec.startswith("."):
            base = posixpath.normpath(posixpath.join(posixpath.dirname(f.path), spec))
        else:
            return None
        stem = base.rsplit(".", 1)[0] if base.endswith((".js", ".mjs", ".cjs", ".ts")) else base
        for cand in (base, stem + ".ts", stem + ".tsx", stem + ".mts", stem + ".js",
                     stem + ".mjs", stem + "/index.ts", stem + "/index.js", base + ".ts"):
            if cand in self.files:
                return self.files[cand]
        return None

    def decl(self, f: File, name: str, depth: int = 0) -> tuple[tuple, File]:
        """The node a name stands for in ``f``, and the file it is declared in."""
        if depth > 12:
            raise Unresolved(f"import chain too long for {name}")
        found = f.decls.get(name)
        if found:
            if len({repr(n) for n in found}) != 1:
                raise Unresolved(f"{name} is declared more than once in {f.path}")
            return found[0], f
        if name in f.imports:
            spec, orig = f.imports[name]
            other = self.module(f, spec)
            if other is None:
                raise Unresolved(f"{name} comes from {spec}, not one of the files read")
            if orig == "*":
                return ("ns", other.path), other
            return self.decl(other, orig, depth + 1)
        for exported, spec, orig in f.reexports:
            if exported in (name, "*"):
                other = self.module(f, spec)
                if other is not None:
                    try:
                        return self.decl(other, name if orig == "*" else orig, depth + 1)
                    except Unresolved:
                        if exported != "*":
                            raise
        raise Unresolved(f"{name} is not declared in the files read ({f.path})")

    def resolve(self, node: tuple, f: File, depth: int = 0) -> tuple[tuple, File]:
        """Follow identifiers and member access to the node they stand for."""
        if depth > MAX_DEPTH:
            raise Unresolved("identifier chain too deep")
        kind = node[0]
        if kind == "id" and node[1] not in self.zod_names:
            target, where = self.decl(f, node[1])
            return self.resolve(target, where, depth + 1)
        if kind == "call":
            try:
                callee, where = self.resolve(node[1], f, depth + 1)
            except Unresolved:  # a function from elsewhere (a library, a global)
                return node, f
            if callee[0] == "arrow" and not _mentions(callee[2], callee[1]):
                # A helper such as `const prompt = (ctx) => \`...\``: its body, read as text,
                # stands for the call when it does not use its parameters.
                return self.resolve(callee[2], where, depth + 1)
            return node, f
        if kind in ("member", "index"):
            key = node[2] if kind == "member" else self.value(node[2], f, depth + 1)
            try:
                base, where = self.resolve(node[1], f, depth + 1)
            except Unresolved:
                raise
            if base[0] == "ns":
                target, where2 = self.decl(self.files[base[1]], str(key))
                return self.resolve(target, where2, depth + 1)
            if base[0] == "obj":
                hits = [n for k, n in base[1] if k == str(key)]
                if len(hits) == 1:
                    return self.resolve(hits[0], where, depth + 1)
                for k, n in reversed(base[1]):
                    if k == "...":
                        try:
                            return self.resolve(("member", n, str(key)), where, depth + 1)
                        except Unresolved:
                            continue
                raise Unresolved(f"no property {key} in an object read")
            if base[0] == "arr" and isinstance(key, int) and 0 <= key < len(base[1]):
                return self.resolve(base[1][key], where, depth + 1)
            return (kind, base, node[2]), where
        return node, f

    def value(self, node: tuple, f: File, depth: int = 0) -> Any:
        """The JSON value of a literal expression (strings evaluated as JavaScript would)."""
        if depth > MAX_DEPTH:
            raise Unresolved("value nests too deep")
        node, f = self.resolve(node, f, depth + 1)
        kind = node[0]
        if kind in ("str", "lit"):
            return node[1]
        if kind == "num":
            if node[1] is None:
                raise Unresolved("number not read")
            return node[1]
        if kind == "tpl":
            return "".join(p if isinstance(p, str) else _js_str(self.value(p, f, depth + 1))
                           for p in node[1])
        if kind == "tagged":
            tag = node[1]
            name = tag[1] if tag[0] == "id" else (tag[2] if tag[0] == "member" else "")
            text = self.value(node[2], f, depth + 1)
            if name in ("dedent", "outdent", "stripIndent", "stripIndents", "endent", "codeBlock"):
                return textwrap.dedent(text).strip()
            if name == "raw":
                raise Unresolved("String.raw keeps escapes the tokenizer has cooked")
            raise Unresolved(f"template tag {name!r} not read")
        if kind == "add":
            left = self.value(node[1], f, depth + 1)
            right = self.value(node[2], f, depth + 1)
            if isinstance(left, str) or isinstance(right, str):
                return _js_str(left) + _js_str(right)
            if isinstance(left, int | float) and isinstance(right, int | float):
                return left + right
            raise Unresolved("+ of values that are not strings or numbers")
        if kind == "arr":
            out = []
            for item in node[1]:
                if item[0] == "spread":
                    got = self.value(item[1], f, depth + 1)
                    if not isinstance(got, list):
                        raise Unresolved("spread of a value that is not an array")
                    out.extend(got)
                else:
                    out.append(self.value(item, f, depth + 1))
            return out
        if kind == "obj":
            result: dict[str, Any] = {}
            for key, val in node[1]:
                if key == "...":
                    got = self.value(val, f, depth + 1)
                    if not isinstance(got, dict):
                        raise Unresolved("spread of a value that is not an object")
                    result.update(got)
                    continue
                if isinstance(key, tuple):
                    key = _js_str(self.value(key[1], f, depth + 1))
                resolved, _ = self.resolve(val, f, depth + 1)
                if resolved[0] == "undef":
                    continue
                result[key] = self.value(val, f, depth + 1)
            return result
        if kind == "call":
            return self._call_value(node, f, depth)
        raise Unresolved(f"not a literal ({kind})")

    def _call_value(self, node: tuple, f: File, depth: int) -> Any:
        callee, args = node[1], node[2]
        if callee[0] == "member":
            method = callee[2]
            if callee[1] == ("id", "Object") and method in ("values", "keys") and len(args) == 1:
                obj = self.value(args[0], f, depth + 1)
                if isinstance(obj, dict):
                    return list(obj.values() if method == "values" else obj.keys())
            base = self.value(callee[1], f, depth + 1)
            if method == "join" and isinstance(base, list) and len(args) <= 1:
                sep = self.value(args[0], f, depth + 1) if args else ","
                return sep.join(_js_str(x) for x in base)
            if method in ("trim", "trimEnd", "trimStart") and isinstance(base, str) and not args:
                return {"trim": base.strip, "trimEnd": base.rstrip,
                        "trimStart": base.lstrip}[method]()
            if method == "concat" and isinstance(base, str | list):
                out = base
                for a in args:
                    out = out + self.value(a, f, depth + 1)
                return out
        if callee[0] == "id" and callee[1] in ("dedent", "outdent") and len(args) == 1:
            return textwrap.dedent(self.value(args[0], f, depth + 1)).strip()
        raise Unresolved("a call that is not read")

    def is_zod(self, node: tuple) -> bool:
        return (node[0] == "id" and node[1] in self.zod_names) or (
            node[0] == "member" and node[2] == "z" and node[1][0] == "id"
            and node[1][1] in self.zod_names)


def _mentions(node: tuple, names: frozenset[str]) -> bool:
    """Whether an expression refers to any of ``names`` (or is too opaque to tell)."""
    if not names:
        return False
    kind = node[0]
    if kind == "id":
        return node[1] in names
    if kind in ("str", "num", "lit", "undef", "regex"):
        return False
    if kind == "obj":
        return any(_mentions(v, names) or (isinstance(k, tuple) and _mentions(k[1], names))
                   for k, v in node[1])
    if kind == "arr":
        return any(_mentions(v, names) for v in node[1])
    if kind == "call":
        return _mentions(node[1], names) or any(_mentions(a, names) for a in node[2])
    if kind in ("member", "spread"):
        return _mentions(node[1], names)
    if kind in ("index", "add", "tagged"):
        return _mentions(node[1], names) or _mentions(node[2], names)
    if kind == "tpl":
        return any(_mentions(p, names) for p in node[1] if isinstance(p, tuple))
    if kind == "arrow":
        return _mentions(node[2], names - node[1])
    return True


def _js_str(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, str | int | float):
        return str(v)
    raise Unresolved("a value that is not a string in a string")

