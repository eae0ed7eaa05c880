"""Zod schemas, read from source text, as the JSON Schema an MCP server would list.

:func:`zod` reads a chain such as ``z.string().min(1).optional().describe("...")`` and returns
``(schema, optional)``; :func:`zod_shape` reads a raw shape (``{a: z.string(), ...}``) into an
object schema. Types, properties, required, descriptions, enums, literals, defaults and bounds
are converted; ``$schema`` and ``additionalProperties`` are not generated. A constructor or
method not listed here, or an argument that cannot be read, raises
:class:`~_extract_js.Unresolved`: the caller then stores the tool's schema as not extracted.
"""

from __future__ import annotations

from typing import Any

from _extract_js import MAX_DEPTH, File, Project, Unresolved

_NOOP = {"refine", "superRefine", "transform", "brand", "readonly", "trim", "toLowerCase",
         "toUpperCase", "passthrough", "strict", "strip", "catchall", "catch", "check",
         "overwrite", "normalize", "unwrap", "includes", "startsWith", "endsWith", "cuid",
         "cuid2", "ulid", "ip", "cidr", "base64", "finite", "safe", "loose", "nonoptional",
         "openapi", "ipv4", "ipv6", "time", "duration", "emoji", "nanoid", "jwt", "lowercase",
         "uppercase", "hex", "hostname", "refinement"}
_FORMATS = {"url": "uri", "email": "email", "uuid": "uuid", "datetime": "date-time",
            "date": "date", "guid": "uuid", "uri": "uri"}

_SIMPLE = {"string": {"type": "string"}, "number": {"type": "number"},
           "bigint": {"type": "integer"}, "int": {"type": "integer"},
           "boolean": {"type": "boolean"}, "any": {}, "unknown": {}, "null": {"type": "null"},
           "date": {"type": "string", "format": "date-time"},
           "email": {"type": "string", "format": "email"},
           "url": {"type": "string", "format": "uri"},
           "uuid": {"type": "string", "format": "uuid"},
           "int32": {"type": "integer"}, "float64": {"type": "number"},
           "json": {}}
_BOUNDS = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems"),
           "object": ("minProperties", "maxProperties")}


def _kind(schema: dict[str, Any]) -> str:
    t = schema.get("type")
    return t if isinstance(t, str) else ""


def _bound(schema: dict[str, Any], method: str, n: Any) -> dict[str, Any]:
    if not isinstance(n, int | float) or isinstance(n, bool):
        raise Unresolved(f".{method}() of a value that is not a number")
    kind = _kind(schema)
    out = dict(schema)
    if kind in _BOUNDS:
        lo, hi = _BOUNDS[kind]
        if method in ("min", "gte", "nonempty"):
            out[lo] = n
        elif method in ("max", "lte"):
            out[hi] = n
        elif method == "length":
            out[lo] = out[hi] = n
        else:
            raise Unresolved(f".{method}() on a {kind}")
        return out
    if kind in ("number", "integer"):
        key = {"min": "minimum", "gte": "minimum", "max": "maximum", "lte": "maximum",
               "gt": "exclusiveMinimum", "lt": "exclusiveMaximum",
               "multipleOf": "multipleOf", "step": "multipleOf"}.get(method)
        if key is None:
            raise Unresolved(f".{method}() on a number")
        out[key] = n
        return out
    raise Unresolved(f".{method}() on a schema whose type is not known")


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def zod_shape(proj: Project, node: tuple, f: File, depth: int = 0) -> dict[str, Any]:
    """An object schema from a raw zod shape ``{key: zodSchema, ...}`` (spreads followed)."""
    node, f = proj.resolve(node, f, depth + 1)
    if node[0] != "obj":
        schema, _ = zod(proj, node, f, depth + 1)
        if _kind(schema) != "object":
            raise Unresolved("a shape that is not an object")
        return schema
    props: dict[str, Any] = {}
    required: list[str] = []
    for key, val in node[1]:
        if key == "...":
            sub = _spread(proj, val, f, depth + 1)
            props.update(sub.get("properties", {}))
            required = [r for r in required if r not in sub.get("properties", {})]
            required += sub.get("required", [])
            continue
        if isinstance(key, tuple):
            key = str(proj.value(key[1], f, depth + 1))
        schema, optional = zod(proj, val, f, depth + 1)
        props[key] = schema
        required = [r for r in required if r != key]
        if not optional:
            required.append(key)
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def _spread(proj: Project, node: tuple, f: File, depth: int) -> dict[str, Any]:
    """``...X`` in a shape: another shape, or ``Y.shape`` of an object schema."""
    if node[0] == "member" and node[2] == "shape":
        schema, _ = zod(proj, node[1], f, depth + 1)
        return schema
    return zod_shape(proj, node, f, depth + 1)


def zod(proj: Project, node: tuple, f: File, depth: int = 0) -> tuple[dict[str, Any], bool]:
    """``(JSON Schema, optional)`` of a zod expression."""
    if depth > MAX_DEPTH:
        raise Unresolved("zod schema nests too deep")
    node, f = proj.resolve(node, f, depth + 1)
    if node[0] == "member" and node[2] == "shape":
        return zod(proj, node[1], f, depth + 1)
    if node[0] != "call":
        raise Unresolved(f"not a zod schema ({node[0]})")
    callee, args = node[1], node[2]
    if callee[0] != "member":
        raise Unresolved("a function call that is not zod")
    base, name = callee[1], callee[2]
    if proj.is_zod(base) or (base[0] == "member" and base[2] == "coerce"
                             and proj.is_zod(base[1])):
        return _construct(proj, name, args, f, depth), name in ("optional", "nullish")
    schema, optional = zod(proj, base, f, depth + 1)
    return _method(proj, schema, optional, name, args, f, depth)


def _construct(proj: Project, name: str, args: list[tuple], f: File, depth: int
               ) -> dict[str, Any]:
    if name in _SIMPLE:
        out = dict(_SIMPLE[name])
        if args:  # zod 3 accepts {description: ...} here (and error messages, not read)
            opts, of = proj.resolve(args[0], f, depth + 1)
            for key, val in opts[1] if opts[0] == "obj" else []:
                if key == "description":
                    out["description"] = proj.value(val, of, depth + 1)
        return out
    if name in ("array", "set"):
        items, _ = zod(proj, args[0], f, depth + 1)
        return {"type": "array", "items": items}
    if name in ("object", "strictObject", "looseObject"):
        return zod_shape(proj, args[0], f, depth + 1) if args else {"type": "object"}
    if name == "enum":
        values = proj.value(args[0], f, depth + 1)
        if isinstance(values, dict):
            values = list(values.values())
        if not isinstance(values, list) or not values:
            raise Unresolved("z.enum of values not read")
        return {"type": "string", "enum": values}
    if name == "nativeEnum":
        obj = proj.value(args[0], f, depth + 1)
        if not isinstance(obj, dict):
            raise Unresolved("z.nativeEnum of something not read")
        values = list(obj.values())
        out = {"enum": values}
        if all(isinstance(v, str) for v in values):
            out["type"] = "string"
        return out
    if name == "literal":
        v = proj.value(args[0], f, depth + 1)
        kind = {bool: "boolean", str: "string", int: "number", float: "number"}.get(type(v))
        return {"type": kind, "const": v} if kind else {"const": v}
    if name in ("union", "discriminatedUnion", "xor"):
        members = args[-1]
        members, mf = proj.resolve(members, f, depth + 1)
        if members[0] != "arr":
            raise Unresolved("a union whose members are not read")
        return {"anyOf": [zod(proj, m, mf, depth + 1)[0] for m in members[1]]}
    if name == "intersection":
        return {"allOf": [zod(proj, a, f, depth + 1)[0] for a in args]}
    if name == "record":
        value, _ = zod(proj, args[-1], f, depth + 1)
        return {"type": "object", "additionalProperties": value}
    if name == "tuple":
        members, mf = proj.resolve(args[0], f, depth + 1)
        if members[0] != "arr":
            raise Unresolved("a tuple whose members are not read")
        return {"type": "array", "prefixItems": [zod(proj, m, mf, depth + 1)[0]
                                                 for m in members[1]]}
    if name in ("optional", "nullable", "nullish"):
        inner, _ = zod(proj, args[0], f, depth + 1)
        return inner if name == "optional" else _nullable(inner)
    if name in ("iso",):
        raise Unresolved("z.iso namespace not read")
    raise Unresolved(f"z.{name}() not read")


def _method(proj: Project, schema: dict[str, Any], optional: bool, name: str,
            args: list[tuple], f: File, depth: int) -> tuple[dict[str, Any], bool]:
    if name == "describe":
        return {**schema, "description": proj.value(args[0], f, depth + 1)}, optional
    if name == "meta":
        meta = proj.value(args[0], f, depth + 1)
        if not isinstance(meta, dict):
            raise Unresolved(".meta() of something not read")
        keep = {k: v for k, v in meta.items() if k in ("description", "title", "examples")}
        return {**schema, **keep}, optional
    if name == "optional":
        return schema, True
    if name in ("nullable",):
        return _nullable(schema), optional
    if name == "nullish":
        return _nullable(schema), True
    if name in ("default", "prefault"):
        out = dict(schema)
        try:
            out["default"] = proj.value(args[0], f, depth + 1) if args else None
        except Unresolved:
            pass  # it has a default whose value is computed: not read, not guessed
        return out, True
    if name in _NOOP:
        return schema, optional
    if name in _FORMATS:
        if _kind(schema) != "string":
            raise Unresolved(f".{name}() on a schema that is not a string")
        return {**schema, "format": _FORMATS[name]}, optional
    if name == "regex":
        pattern, _ = proj.resolve(args[0], f, depth + 1)
        if pattern[0] != "regex":
            return schema, optional  # a pattern built at run time: left out
        body = pattern[1]
        return {**schema, "pattern": body[1:body.rindex("/")]}, optional
    if name == "int":
        return {**schema, "type": "integer"}, optional
    if name in ("positive", "negative", "nonnegative", "nonpositive"):
        key = {"positive": "exclusiveMinimum", "negative": "exclusiveMaximum",
               "nonnegative": "minimum", "nonpositive": "maximum"}[name]
        return {**schema, key: 0}, optional
    if name == "nonempty" and not args:
        return _bound(schema, "nonempty", 1), optional
    if name in ("min", "max", "length", "gte", "lte", "gt", "lt", "multipleOf", "step"):
        try:
            n = proj.value(args[0], f, depth + 1)
        except Unresolved:
            return schema, optional  # a bound computed at run time: left out
        return _bound(schema, name, n), optional
    if name == "array":
        return {"type": "array", "items": schema}, False
    if name == "or":
        other, _ = zod(proj, args[0], f, depth + 1)
        return {"anyOf": [schema, other]}, optional
    if name in ("and",):
        other, _ = zod(proj, args[0], f, depth + 1)
        return {"allOf": [schema, other]}, optional
    if name in ("extend", "merge", "safeExtend"):
        if _kind(schema) != "object":
            raise Unresolved(f".{name}() on a schema that is not an object")
        other = zod_shape(proj, args[0], f, depth + 1) if name != "merge" else \
            zod(proj, args[0], f, depth + 1)[0]
        props = {**schema.get("properties", {}), **other.get("properties", {})}
        required = [r for r in schema.get("required", []) if r not in other.get("properties", {})]
        required += other.get("required", [])
        out = {k: v for k, v in schema.items() if k not in ("properties", "required")}
        out["properties"] = props
        if required:
            out["required"] = required
        return out, optional
    if name in ("partial", "required", "pick", "omit", "deepPartial"):
        return _subset(proj, schema, name, args, f, depth), optional
    if name == "pipe":
        raise Unresolved(".pipe() not read")
    raise Unresolved(f".{name}() not read")


def _subset(proj: Project, schema: dict[str, Any], name: str, args: list[tuple], f: File,
            depth: int) -> dict[str, Any]:
    if _kind(schema) != "object":
        raise Unresolved(f".{name}() on a schema that is not an object")
    out = dict(schema)
    props = dict(schema.get("properties", {}))
    if name in ("partial", "deepPartial"):
        if args:
            raise Unresolved(".partial({...}) not read")
        out.pop("required", None)
        return out
    if name == "required":
        if args:
            raise Unresolved(".required({...}) not read")
        out["required"] = list(props)
        return out
    mask = proj.value(args[0], f, depth + 1)
    if not isinstance(mask, dict):
        raise Unresolved(f".{name}() of a mask not read")
    keep = [k for k in props if (k in mask) == (name == "pick")]
    out["properties"] = {k: props[k] for k in keep}
    req = [r for r in schema.get("required", []) if r in keep]
    out.pop("required", None)
    if req:
        out["required"] = req
    return out
