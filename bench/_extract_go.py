"""Reading MCP tool definitions out of Go server source, without building or running it.

Files are tokenized and parsed by ``_extract_lex`` in Go mode. Three shapes are read:

- mcp-go's builder: ``mcp.NewTool(name, mcp.WithDescription(...), mcp.WithString("p",
  mcp.Required(), mcp.Description(...)), mcp.WithReadOnlyHintAnnotation(true), ...)``;
- a ``Tool{Name: ..., Description: ..., InputSchema: &jsonschema.Schema{...},
  Annotations: ...{...}}`` composite literal (kubernetes-mcp-server's ``api.Tool``);
- ``MustTool(name, description, handler, options...)`` (mcp-grafana), whose input schema is
  reflected from the handler's argument struct: its fields' ``json`` and ``jsonschema`` tags
  are read as invopop/jsonschema reads them with ``RequiredFromJSONSchemaTags``.

Package-level ``const``/``var`` strings are followed by name (``pkg.Name`` or ``Name``) when
one declaration of that name exists in the files read. What cannot be read raises
:class:`Unresolved`.
"""

from __future__ import annotations

import json
from typing import Any

from _extract_lex import LexError, tokenize
from _extract_parse import Parser

HINT_OPTIONS = {"WithTitleAnnotation": "title", "WithReadOnlyHintAnnotation": "readOnlyHint",
                "WithDestructiveHintAnnotation": "destructiveHint",
                "WithIdempotentHintAnnotation": "idempotentHint",
                "WithOpenWorldHintAnnotation": "openWorldHint"}
_KINDS = {"WithString": "string", "WithNumber": "number", "WithBoolean": "boolean",
          "WithArray": "array", "WithObject": "object", "WithInteger": "integer",
          "WithAny": None}
# Options that set what the model does not read as the tool's input (icons, _meta, output).
_IGNORED = {"WithToolIcons", "WithDeferLoading", "WithSchemaAdditionalProperties",
            "WithOutputSchema", "WithRawOutputSchema", "WithMeta", "WithIcons",
            "WithUIResource"}
_SCHEMA_FIELDS = {"Type": "type", "Description": "description", "Properties": "properties",
                  "Items": "items", "Required": "required", "Enum": "enum", "Pattern": "pattern",
                  "Minimum": "minimum", "Maximum": "maximum", "MinLength": "minLength",
                  "MaxLength": "maxLength", "MinItems": "minItems", "MaxItems": "maxItems",
                  "Title": "title", "Format": "format", "AnyOf": "anyOf", "OneOf": "oneOf",
                  "Default": "default", "Examples": "examples", "Const": "const"}
_GO_TYPES = {"string": "string", "bool": "boolean", "float32": "number", "float64": "number",
             **{t: "integer" for t in ("int", "int8", "int16", "int32", "int64", "uint",
                                       "uint8", "uint16", "uint32", "uint64")}}


class Unresolved(Exception):
    """A value the extractor cannot read from the source text alone."""


def _name(node: tuple) -> str:
    if node[0] == "id":
        return node[1]
    if node[0] == "member":
        return node[2]
    if node[0] == "generic":
        return _name(node[1])
    return ""


class Package:
    """Every Go file read: package-level constants and struct types by name."""

    def __init__(self, files: dict[str, str]) -> None:
        self.toks: dict[str, list[tuple]] = {}
        self.errors: list[str] = []
        self.consts: dict[str, list[tuple]] = {}
        self.structs: dict[str, list[list[tuple]]] = {}
        self.funcs: dict[str, list[list[tuple]]] = {}
        for path, text in sorted(files.items()):
            try:
                toks = tokenize(text, go=True)
            except LexError as exc:
                self.errors.append(f"{path}: not tokenized ({exc})")
                continue
            self.toks[path] = toks
            self._scan(toks)

    def _scan(self, t: list[tuple]) -> None:
        for i, (kind, val, _) in enumerate(t):
            if kind != "id":
                continue
            if val in ("const", "var") and i + 1 < len(t):
                if t[i + 1][1] == "(":
                    p = Parser(t, go=True)
                    end = p.match(i + 1)
                    k = i + 2
                    while k < end:
                        k = self._spec(t, k, end)
                else:
                    self._spec(t, i + 1, len(t))
            elif val == "type" and i + 3 < len(t) and t[i + 1][0] == "id" \
                    and t[i + 2][1] == "struct" and t[i + 3][1] == "{":
                end = Parser(t, go=True).match(i + 3)
                self.structs.setdefault(t[i + 1][1], []).append(t[i + 4:end])
            elif val == "func" and i + 2 < len(t) and t[i + 1][0] == "id" \
                    and t[i + 2][1] == "(":
                end = Parser(t, go=True).match(i + 2)
                self.funcs.setdefault(t[i + 1][1], []).append(t[i + 3:end])

    def _spec(self, t: list[tuple], k: int, end: int) -> int:
        """Read ``Name [Type] = Expr`` at ``k``; the index after it."""
        names = []
        while k < end and t[k][0] == "id":
            names.append(t[k][1])
            k += 1
            if k < end and t[k][1] == ",":
                k += 1
            else:
                break
        while k < end and t[k][1] not in ("=", ";"):
            k += 1
        if k < end and t[k][1] == "=" and len(names) == 1:
            p = Parser(t, go=True)
            p.pos = k + 1
            try:
                self.consts.setdefault(names[0], []).append(p.expr())
            except (SyntaxError, IndexError):
                self.consts.setdefault(names[0], []).append(("opaque",))
            k = p.pos
        while k < end and t[k][1] != ";":
            k += 1
        return k + 1

    def const(self, name: str) -> tuple:
        found = self.consts.get(name)
        if not found or len({repr(n) for n in found}) != 1:
            raise Unresolved(f"{name} is not one constant of the files read")
        return found[0]

    def value(self, node: tuple, depth: int = 0) -> Any:
        """The value of a Go constant expression, composite literals as lists and maps."""
        if depth > 30:
            raise Unresolved("constant chain too deep")
        kind = node[0]
        if kind in ("str", "lit"):
            return node[1]
        if kind == "num" and node[1] is not None:
            return node[1]
        if kind == "id" or (kind == "member" and node[1][0] == "id"):
            return self.value(self.const(_name(node)), depth + 1)
        if kind == "add":
            left, right = self.value(node[1], depth + 1), self.value(node[2], depth + 1)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            raise Unresolved("+ of values that are not strings")
        if kind == "comp":
            items = node[2]
            if items and all(k is not None for k, _ in items):
                return {str(self.value(k, depth + 1)): self.value(v, depth + 1) for k, v in items}
            return [self.value(v, depth + 1) for _, v in items]
        if kind == "call":
            fn, args = _name(node[1]), node[2]
            if fn in ("To", "ToBoolPtr", "BoolPtr", "Ptr", "boolPtr", "ptrTo", "Bool") \
                    and len(args) == 1:
                return self.value(args[0], depth + 1)
            if fn == "Join" and len(args) == 2:
                parts = self.value(args[0], depth + 1)
                if isinstance(parts, list):
                    return self.value(args[1], depth + 1).join(str(p) for p in parts)
            if fn == "RawMessage" and len(args) == 1:
                return json.loads(self.value(args[0], depth + 1))
        raise Unresolved(f"not a constant ({kind})")

    def schema(self, node: tuple, depth: int = 0) -> dict[str, Any]:
        """A ``jsonschema.Schema{...}`` composite literal as JSON Schema."""
        if node[0] != "comp":
            raise Unresolved("a schema that is not a composite literal")
        out: dict[str, Any] = {}
        for key, val in node[2]:
            field = _name(key) if key is not None else ""
            if field not in _SCHEMA_FIELDS:
                raise Unresolved(f"schema field {field or '?'} not read")
            wire = _SCHEMA_FIELDS[field]
            if wire == "properties":
                if val[0] != "comp":
                    raise Unresolved("properties not a literal")
                out[wire] = {str(self.value(k)): self.schema(v, depth + 1) for k, v in val[2]}
            elif wire == "items":
                out[wire] = self.schema(val, depth + 1)
            elif wire in ("anyOf", "oneOf"):
                out[wire] = [self.schema(v, depth + 1) for _, v in val[2]]
            else:
                out[wire] = self.value(val)
        return out


def _builder(pkg: Package, args: list[tuple]) -> tuple[dict[str, Any], str | None]:
    tool: dict[str, Any] = {"name": pkg.value(args[0])}
    props: dict[str, Any] = {}
    required: list[str] = []
    note = None
    ann: dict[str, Any] = {}
    for opt in args[1:]:
        if opt[0] != "call":
            note = note or "an option that is not a call"
            continue
        fn, oargs = _name(opt[1]), opt[2]
        if fn == "WithDescription":
            tool["description"] = pkg.value(oargs[0])
        elif fn in HINT_OPTIONS:
            ann[HINT_OPTIONS[fn]] = pkg.value(oargs[0])
        elif fn == "WithToolAnnotation":
            got = _annotations(pkg, oargs[0])
            ann.update(got)
        elif fn in _KINDS:
            try:
                name = pkg.value(oargs[0])
                prop, req = _property(pkg, _KINDS[fn], oargs[1:])
                props[name] = prop
                if req:
                    required.append(name)
            except Unresolved as exc:
                note = note or str(exc)
        elif fn == "WithRawInputSchema":
            try:
                tool["inputSchema"] = pkg.value(oargs[0])
            except (Unresolved, ValueError) as exc:
                note = note or f"raw input schema not read: {exc}"
        elif fn in _IGNORED:
            continue
        else:
            note = note or f"option {fn} not read"
    if "inputSchema" not in tool:
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        tool["inputSchema"] = schema
    if ann:
        tool["annotations"] = ann
    return tool, note


def _annotations(pkg: Package, node: tuple) -> dict[str, Any]:
    if node[0] != "comp":
        raise Unresolved("annotations that are not a composite literal")
    keys = {"Title": "title", "ReadOnlyHint": "readOnlyHint",
            "DestructiveHint": "destructiveHint", "IdempotentHint": "idempotentHint",
            "OpenWorldHint": "openWorldHint"}
    out = {}
    for key, val in node[2]:
        field = _name(key) if key is not None else ""
        if field in keys:
            got = pkg.value(val)
            if got is not None:
                out[keys[field]] = got
    return out


def _property(pkg: Package, kind: str | None, opts: list[tuple]) -> tuple[dict[str, Any], bool]:
    prop: dict[str, Any] = {"type": kind} if kind else {}
    required = False
    simple = {"Description": "description", "Title": "title", "Pattern": "pattern",
              "Min": "minimum", "Max": "maximum", "MinLength": "minLength",
              "MaxLength": "maxLength", "MinItems": "minItems", "MaxItems": "maxItems",
              "MultipleOf": "multipleOf", "DefaultString": "default",
              "DefaultNumber": "default", "DefaultBool": "default", "DefaultArray": "default",
              "DefaultInteger": "default"}
    for opt in opts:
        if opt[0] != "call":
            raise Unresolved("a property option that is not a call")
        fn, args = _name(opt[1]), opt[2]
        if fn == "Required":
            required = True
        elif fn in simple:
            prop[simple[fn]] = pkg.value(args[0])
        elif fn == "Enum":
            values: list[Any] = []
            for a in args:
                got = pkg.value(a[1] if a[0] == "spread" else a)
                values.extend(got if a[0] == "spread" else [got])
            prop["enum"] = values
        elif fn in ("Items", "Properties"):
            prop["items" if fn == "Items" else "properties"] = pkg.value(args[0])
        elif fn in ("WithStringItems", "WithNumberItems", "WithBooleanItems",
                    "WithIntegerItems"):
            item, _ = _property(pkg, fn[4:-5].lower(), args)
            prop["items"] = item
        elif fn == "WithStringEnumItems":
            prop["items"] = {"type": "string", "enum": pkg.value(args[0])}
        elif fn in ("AdditionalProperties",):
            continue
        else:
            raise Unresolved(f"property option {fn} not read")
    return prop, required


def _composite_tool(pkg: Package, node: tuple) -> tuple[dict[str, Any], str | None]:
    fields = {_name(k): v for k, v in node[2] if k is not None}
    tool: dict[str, Any] = {"name": pkg.value(fields["Name"])}
    if "Title" in fields:
        tool["title"] = pkg.value(fields["Title"])
    if "Description" in fields:
        tool["description"] = pkg.value(fields["Description"])
    note = None
    if "InputSchema" in fields:
        try:
            tool["inputSchema"] = pkg.schema(fields["InputSchema"])
        except Unresolved as exc:
            tool["inputSchema"], note = {"type": "object"}, str(exc)
    else:
        tool["inputSchema"], note = {"type": "object"}, "no InputSchema literal"
    if "Annotations" in fields:
        tool["annotations"] = _annotations(pkg, fields["Annotations"]) or None
        if tool["annotations"] is None:
            del tool["annotations"]
    return tool, note


def _struct_schema(pkg: Package, name: str, depth: int = 0) -> dict[str, Any]:
    found = pkg.structs.get(name)
    if not found or len(found) != 1:
        raise Unresolved(f"struct {name} is not one type of the files read")
    if depth > 8:
        raise Unresolved("structs nest too deep")
    props: dict[str, Any] = {}
    required: list[str] = []
    for field in _fields(found[0]):
        names, type_toks, tag = field
        if not names:  # an embedded struct: its fields are this one's
            sub = _struct_schema(pkg, str(type_toks[-1][1]), depth + 1)
            props.update(sub["properties"])
            required += sub.get("required", [])
            continue
        tags = _tags(tag)
        json_name = tags.get("json", "").split(",")[0]
        if json_name == "-" or not names[0][:1].isupper():
            continue
        schema = _go_type(pkg, type_toks, depth)
        opts = _jsonschema_tag(tags.get("jsonschema", ""))
        if opts.pop("required", None):
            required.append(json_name or names[0])
        schema.update(opts)
        props[json_name or names[0]] = schema
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def _fields(toks: list[tuple]) -> list[tuple[list[str], list[tuple], str]]:
    """A struct body's fields: ``(names, type tokens, tag)``; no names for an embedded one."""
    out, line = [], []
    for tok in toks + [("p", ";", -1)]:
        if not (tok[0] == "p" and tok[1] == ";"):
            line.append(tok)
            continue
        if line:
            tag = line[-1][1] if line[-1][0] == "str" else ""
            body = line[:-1] if tag else line
            vals = [str(t[1]) for t in body]
            embedded = len(body) == 1 or vals[:1] == ["*"] and len(body) == 2 or (
                len(body) == 3 and vals[1] == ".")
            if embedded:
                out.append(([], body, tag))
            else:
                names, k = [body[0][1]], 1
                while k + 1 < len(body) and vals[k] == ",":
                    names.append(body[k + 1][1])
                    k += 2
                out.append((names, body[k:], tag))
        line = []
    return out


def _tags(tag: str) -> dict[str, str]:
    out, i = {}, 0
    while i < len(tag):
        j = tag.find(':"', i)
        if j < 0:
            break
        key = tag[i:j].strip()
        k = j + 2
        buf = []
        while k < len(tag) and tag[k] != '"':
            if tag[k] == "\\":
                buf.append(tag[k + 1])
                k += 2
                continue
            buf.append(tag[k])
            k += 1
        out[key] = "".join(buf)
        i = k + 1
    return out


def _jsonschema_tag(text: str) -> dict[str, Any]:
    """invopop/jsonschema's tag: ``required,description=...,enum=a,enum=b,default=x``."""
    parts, buf, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] == ",":
            buf.append(",")
            i += 2
            continue
        if text[i] == ",":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(text[i])
        i += 1
    if buf:
        parts.append("".join(buf))
    out: dict[str, Any] = {}
    for part in parts:
        key, _, val = part.partition("=")
        if key == "required":
            out["required"] = True
        elif key in ("description", "title", "pattern", "format"):
            out[key] = val
        elif key == "enum":
            out.setdefault("enum", []).append(val)
        elif key == "default":
            out["default"] = val
        elif key in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"):
            try:
                out[key] = int(val)
            except ValueError:
                out[key] = float(val)
    return out


def _go_type(pkg: Package, toks: list[tuple], depth: int) -> dict[str, Any]:
    names = [t[1] for t in toks if t[0] != "p" or t[1] in ("[", "]")]
    text = "".join(str(t[1]) for t in toks)
    if text.startswith("*"):
        text = text[1:]
    if text in _GO_TYPES:
        return {"type": _GO_TYPES[text]}
    if text.startswith("[]"):
        inner = toks[2:] if toks[0][1] == "[" else toks[3:]
        return {"type": "array", "items": _go_type(pkg, inner, depth + 1)}
    if text.startswith("map["):
        return {"type": "object"}
    if text in ("any", "interface{}"):
        return {}
    if text in ("time.Time",):
        return {"type": "string", "format": "date-time"}
    if names and "." not in text and text in pkg.structs:
        return _struct_schema(pkg, text, depth + 1)
    raise Unresolved(f"field type {text} not read")


def _handler_schema(pkg: Package, handler: tuple) -> dict[str, Any]:
    name = _name(handler)
    found = pkg.funcs.get(name)
    if not found or len(found) != 1:
        raise Unresolved(f"handler {name} is not one function of the files read")
    params = [p for p in " ".join(str(t[1]) for t in found[0]).split(",")]
    if len(params) < 2:
        raise Unresolved(f"handler {name} takes no argument struct")
    arg_type = params[1].split()[-1]
    return _struct_schema(pkg, arg_type)


def extract(files: dict[str, str], opts: dict[str, Any]
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tool records (``tool``, ``file``, ``line``, ``schema`` note) and skips."""
    pkg = Package(files)
    tools: list[dict[str, Any]] = []
    skipped = [{"name": "", "file": e.split(":")[0], "reason": e} for e in pkg.errors]
    composite = set(opts.get("composite", []))
    for path, toks in pkg.toks.items():
        text = files[path]
        for i, (kind, val, pos) in enumerate(toks):
            if kind != "id" or i + 1 >= len(toks):
                continue
            style = None
            if val == "NewTool" and toks[i + 1][1] == "(":
                style = "builder"
            elif val == "MustTool" and toks[i + 1][1] == "(":
                style = "grafana"
            elif val in composite and toks[i + 1][1] == "{" and i > 0 and toks[i - 1][1] == ".":
                style = "composite"
            if style is None:
                continue
            line = text.count("\n", 0, pos) + 1
            p = Parser(toks, go=True)
            p.pos = i + 1
            try:
                if style == "composite":
                    node = p.go_composite(("id", val))
                    if not any(k is not None and _name(k) == "Name" for k, _ in node[2]):
                        continue
                    tool, note = _composite_tool(pkg, node)
                else:
                    args = p.args(")")
                    if style == "builder":
                        tool, note = _builder(pkg, args)
                    else:
                        tool = {"name": pkg.value(args[0]), "description": pkg.value(args[1])}
                        note = None
                        try:
                            tool["inputSchema"] = _handler_schema(pkg, args[2])
                        except Unresolved as exc:
                            tool["inputSchema"], note = {"type": "object"}, str(exc)
                        more, extra_note = _builder(pkg, [("str", tool["name"])] + args[3:])
                        if more.get("annotations"):
                            tool["annotations"] = more["annotations"]
                        note = note or extra_note
            except (Unresolved, SyntaxError, IndexError, KeyError, ValueError, TypeError,
                    AttributeError) as exc:
                skipped.append({"name": "?", "file": path, "line": line,
                                "reason": str(exc)[:200]})
                continue
            if not isinstance(tool.get("name"), str) or not isinstance(
                    tool.get("description", ""), str):
                skipped.append({"name": "?", "file": path, "line": line,
                                "reason": "name or description is not a string"})
                continue
            tools.append({"tool": tool, "file": path, "line": line, "schema": note})
    return tools, skipped
