"""Reading MCP tool definitions out of TypeScript/JavaScript server source, without running it.

Per server, the manifest's options say which registrations to read:

- ``calls``: ``{name: style}`` for the functions or methods whose call registers a tool:
  ``"tool"`` (the SDK's ``server.tool(name, description?, shape?, annotations?, cb)``),
  ``"register"`` (``server.registerTool(name, {title, description, inputSchema,
  outputSchema, annotations}, cb)``) or ``"object"`` (a definition object as the first
  argument, such as ``defineTool({name, description, inputSchema, ...})``);
- ``literals``: also read every object literal holding ``name``, ``description`` and
  ``inputSchema`` (a static tool list returned by a ``ListTools`` handler);
- ``nested``: a key under which a definition object keeps the tool's fields
  (``defineTool({schema: {name, description, inputSchema}, handle})``);
- ``schema_keys``: which key of a definition holds the input schema (first found wins);
- ``classes``: ``{wire field: class field}`` for tools that are classes whose field
  initializers hold the definition (``static toolName = "..."``, ``argsShape = {...}``);
- ``name_keys``: which key of a definition holds the wire name (default ``name``);
- ``zod``: the names zod is imported as (default ``z`` and ``zod``);
- ``keyed``: names (globs) of declarations ``{tool_name: {description, ...}}``;
- ``wrap_input``: a property the server nests every definition's schema under;
- ``tool_files``: globs of the files registrations are read from (the others only resolve
  names); ``aliases``: ``{package prefix: folder}`` for a monorepo's own imports.

Values are read by ``_extract_js`` and zod by ``_extract_zod``; nothing is executed.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from _extract_js import _SCHEMA_KEYS, HINTS, File, Project, Unresolved
from _extract_parse import Parser
from _extract_zod import zod, zod_shape

_TO_JSON = {"zodToJsonSchema", "toJSONSchema", "zodToJson", "toJsonSchema", "zodToJSONSchema"}
_TEXTY = {"str", "tpl", "add", "tagged"}
_TYPE_NAMES = {"string", "number", "boolean", "any", "unknown", "never"}


def _root(node: tuple) -> tuple:
    while node[0] in ("call", "member"):
        node = node[1]
    return node


def _line(f: File, tok_index: int) -> int:
    pos = f.toks[tok_index][2]
    return f.text.count("\n", 0, max(pos, 0)) + 1


class Reader:
    """Tool definitions of one server's files."""

    def __init__(self, files: dict[str, str], opts: dict[str, Any]) -> None:
        self.proj = Project(files, set(opts.get("zod", ["z", "zod"])), opts.get("aliases"))
        for path, f in self.proj.files.items():
            f.text = files[path]
        self.opts = opts
        self.schema_keys = tuple(opts.get("schema_keys", _SCHEMA_KEYS))
        self.tools: list[dict[str, Any]] = []
        self.skipped: list[dict[str, Any]] = [
            {"name": "", "file": e.split(":")[0], "reason": e} for e in self.proj.errors]

    def schema(self, node: tuple, f: File) -> dict[str, Any]:
        """JSON Schema of what a definition gives as its input (or output) schema."""
        proj = self.proj
        node, f = proj.resolve(node, f)
        if node[0] == "undef":
            return {"type": "object"}
        if node[0] == "member" and node[2] == "shape":  # z.object(...).shape
            return zod(proj, node[1], f)[0]
        if node[0] == "call" and node[1][0] in ("id", "member") and (
                node[1][-1] in _TO_JSON if node[1][0] == "member" else node[1][1] in _TO_JSON):
            return zod(proj, node[2][0], f)[0]
        if node[0] == "call" and proj.is_zod(_root(node)):
            return zod(proj, node, f)[0]
        if node[0] == "obj":
            fields = {k: v for k, v in node[1] if isinstance(k, str)}
            kind = fields.get("type")
            if kind is not None:
                kind_node, _ = proj.resolve(kind, f)
                if kind_node[0] == "str":
                    schema = proj.value(node, f)
                    if not isinstance(schema, dict):
                        raise Unresolved("a schema that is not an object")
                    return schema
            return zod_shape(proj, node, f)
        raise Unresolved(f"a schema not read ({node[0]})")

    def fields(self, node: tuple, f: File, depth: int = 0) -> dict[str, tuple[tuple, File]]:
        """A definition object's fields (each with its file), spreads of read objects merged."""
        node, f = self.proj.resolve(node, f)
        if node[0] != "obj":
            raise Unresolved("a definition that is not an object literal")
        out: dict[str, tuple[tuple, File]] = {}
        for key, val in node[1]:
            if key == "..." and depth < 4:
                out.update(self.fields(val, f, depth + 1))
            elif isinstance(key, str):
                out[key] = (val, f)
        nested = self.opts.get("nested")
        if nested and nested in out:
            inner, inner_f = self.proj.resolve(*out[nested])
            if inner[0] == "obj" and any(k == "name" for k, _ in inner[1]):
                merged = self.fields(inner, inner_f, depth + 1)
                return {**{k: v for k, v in out.items() if k != nested}, **merged}
        return out

    def definition(self, fields: dict[str, tuple[tuple, File]], name: Any = None
                   ) -> tuple[dict[str, Any], str | None]:
        """The wire tool of a definition's fields, and why its schema was not read."""
        proj = self.proj
        if name is None:
            key = next((k for k in self.opts.get("name_keys", ["name", "toolName"])
                        if k in fields), None)
            if key is None:
                raise Unresolved("a definition without a name")
            name = proj.value(*fields[key])
        if not isinstance(name, str) or not name:
            raise Unresolved("tool name is not a string")
        tool: dict[str, Any] = {"name": name}
        for key in ("title", "description"):
            if key in fields:
                text = proj.value(*fields[key])
                if not isinstance(text, str):
                    raise Unresolved(f"{key} is not a string")
                tool[key] = text
        note = None
        key = next((k for k in self.schema_keys if k in fields), None)
        try:
            tool["inputSchema"] = self.schema(*fields[key]) if key else {"type": "object"}
            wrap = self.opts.get("wrap_input")
            if wrap:  # the server registers {wrap: <the definition's schema>} (optional)
                tool["inputSchema"] = {"type": "object",
                                       "properties": {wrap: tool["inputSchema"]}}
        except Unresolved as exc:
            tool["inputSchema"], note = {"type": "object"}, str(exc)
        if "outputSchema" in fields:
            try:
                tool["outputSchema"] = self.schema(*fields["outputSchema"])
            except Unresolved:
                pass  # an output schema is optional on the wire: left out, not guessed
        if "annotations" in fields:
            self._annotations(tool, *fields["annotations"])
        return tool, note

    def _annotations(self, tool: dict[str, Any], node: tuple, f: File) -> None:
        try:
            ann = self.proj.value(node, f)
            if not isinstance(ann, dict):
                raise Unresolved("annotations are not an object")
        except Unresolved as exc:
            tool["annotations_note"] = f"not extracted: {exc}"
            return
        ann = {k: ann[k] for k in HINTS if ann.get(k) is not None}
        if ann:
            tool["annotations"] = ann

    def positional(self, args: list[tuple], f: File) -> tuple[dict[str, Any], str | None]:
        """``server.tool(name, description?, shape?, annotations?, callback)``."""
        proj = self.proj
        args = [a for a in args if proj.resolve(a, f)[0][0] not in ("func", "arrow")]
        if not args:
            raise Unresolved("no arguments")
        name = proj.value(args[0], f)
        desc, shape, ann = None, None, None
        for arg in args[1:]:
            node, _ = proj.resolve(arg, f)
            if node[0] in _TEXTY or (node[0] == "call" and not proj.is_zod(_root(node))):
                if desc is not None:
                    raise Unresolved("two descriptions")
                desc = arg
            elif node[0] == "obj" and shape is not None:
                ann = arg
            elif node[0] == "obj" and {k for k, _ in node[1]} and \
                    {k for k, _ in node[1]} <= set(HINTS):
                ann = arg
            else:
                shape = arg
        fields: dict[str, tuple[tuple, File]] = {}
        if desc is not None:
            fields["description"] = (desc, f)
        if shape is not None:
            fields["inputSchema"] = (shape, f)
        if ann is not None:
            fields["annotations"] = (ann, f)
        saved, self.schema_keys = self.schema_keys, ("inputSchema",)
        try:
            return self.definition(fields, name)
        finally:
            self.schema_keys = saved

    def read_file(self, f: File) -> None:
        calls: dict[str, str] = self.opts.get("calls", {})
        toks = f.toks
        for i, (kind, val, _) in enumerate(toks):
            style = calls.get(val) if kind == "id" else None
            if style and i + 1 < len(toks) and toks[i + 1][1] == "(":
                if self.opts.get("methods_only") and (i == 0 or toks[i - 1][1] not in (".", "?.")):
                    continue
                self._call(f, i, style)
            elif self.opts.get("literals") and kind == "p" and val == "{":
                self._literal(f, i)

    def _record(self, f: File, i: int, label: str, build: Any) -> None:
        try:
            tool, note = build()
        except (Unresolved, SyntaxError, IndexError, KeyError, TypeError, ValueError) as exc:
            self.skipped.append({"name": label, "file": f.path, "line": _line(f, i),
                                 "reason": str(exc)[:200]})
            return
        self.tools.append({"tool": tool, "file": f.path, "line": _line(f, i), "schema": note})

    def _call(self, f: File, i: int, style: str) -> None:
        p = Parser(f.toks, newlines=f.newlines)
        p.pos = i + 1
        try:
            args = p.args(")")
        except (SyntaxError, IndexError) as exc:
            self.skipped.append({"name": "", "file": f.path, "line": _line(f, i),
                                 "reason": f"arguments not parsed: {exc}"})
            return
        if not args:
            return
        label = _label(args[0])
        if style == "tool":
            self._record(f, i, label, lambda: self.positional(args, f))
        elif style == "register" and self.proj.resolve(args[0], f)[0][0] == "obj":
            self._record(f, i, _label_obj(self.proj.resolve(args[0], f)[0]),
                         lambda: self.definition(self.fields(args[0], f)))
        elif style == "register":
            def build() -> tuple[dict[str, Any], str | None]:
                fields = self.fields(args[1], f) if len(args) > 1 else {}
                return self.definition(fields, self.proj.value(args[0], f))
            self._record(f, i, label, build)
        elif style == "object":
            def build_obj() -> tuple[dict[str, Any], str | None]:
                return self.definition(self.fields(args[0], f))
            node, _ = self.proj.resolve(args[0], f) if args[0][0] == "id" else (args[0], f)
            self._record(f, i, _label_obj(node), build_obj)

    def class_tools(self, f: File) -> None:
        """Classes whose field initializers hold a tool (``static toolName = ...``)."""
        spec: dict[str, str] = self.opts["classes"]
        for cls, fields, i in f.classes:
            if spec["name"] not in fields:
                continue
            wanted = {wire: (fields[src], f) for wire, src in spec.items() if src in fields}
            saved, self.schema_keys = self.schema_keys, ("inputSchema",)
            try:
                self._record(f, i, cls, lambda w=wanted: self.definition(w))
            finally:
                self.schema_keys = saved

    def keyed(self, f: File, node: tuple) -> None:
        """``{tool_name: {description, parameters, ...}, ...}``: one tool per property."""
        node, g = self.proj.resolve(node, f)
        if node[0] != "obj":
            return
        for key, val in node[1]:
            if not isinstance(key, str) or key == "...":
                continue
            line = g.text.count("\n", 0, 0)
            try:
                tool, note = self.definition(self.fields(val, g), key)
            except (Unresolved, SyntaxError, IndexError, KeyError, TypeError) as exc:
                self.skipped.append({"name": key, "file": g.path, "reason": str(exc)[:200]})
                continue
            self.tools.append({"tool": tool, "file": g.path, "line": line, "schema": note})

    def _literal(self, f: File, i: int) -> None:
        p = Parser(f.toks, newlines=f.newlines)
        p.pos = i
        try:
            node = p.obj()
        except (SyntaxError, IndexError):
            return
        keys = {k for k, _ in node[1] if isinstance(k, str)}
        wanted = self.opts.get("literal_keys", ["inputSchema"])
        names = set(self.opts.get("name_keys", ["name"]))
        if not keys & names or "description" not in keys or not keys & set(wanted):
            return
        if any(k in names and v[0] == "id" and v[1] in _TYPE_NAMES for k, v in node[1]):
            return  # a type literal ({name: string; ...}), not a value
        saved, self.schema_keys = self.schema_keys, tuple(wanted)
        try:
            self._record(f, i, _label_obj(node),
                         lambda: self.definition(self.fields(node, f)))
        finally:
            self.schema_keys = saved


def _label(node: tuple) -> str:
    if node[0] == "str":
        return node[1]
    if node[0] == "id":
        return node[1]
    if node[0] == "member":
        return f"{_label(node[1])}.{node[2]}"
    return "?"


def _label_obj(node: tuple) -> str:
    if node[0] == "obj":
        for k, v in node[1]:
            if k == "name":
                return _label(v)
    return "?"


def extract(files: dict[str, str], opts: dict[str, Any]
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tool records (``tool``, ``file``, ``line``, ``schema`` note) and skips."""
    reader = Reader(files, opts)
    where = opts.get("tool_files", ["*"])
    for f in reader.proj.files.values():
        if not any(fnmatch.fnmatchcase(f.path, g) for g in where):
            continue  # read only to resolve names
        reader.read_file(f)
        if opts.get("classes"):
            reader.class_tools(f)
        for pattern in opts.get("keyed", []):
            for name, nodes in f.decls.items():
                if fnmatch.fnmatchcase(name, pattern) and len(nodes) == 1:
                    reader.keyed(f, nodes[0])
    return reader.tools, reader.skipped
