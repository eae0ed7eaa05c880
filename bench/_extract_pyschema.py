"""The JSON Schema pydantic would derive from a function's signature, read from its source.

Used by ``_extract_py``: parameter annotations and defaults (``Field(...)``,
``Annotated[..., Field(...)]``) become a schema; enums, pydantic models and TypedDicts of the
files read are inlined (not put in ``$defs``); ``Context`` parameters are dropped as FastMCP
drops them; property titles pydantic generates are not. What cannot be read raises
:class:`~_extract_pysrc.Unresolved`.
"""

from __future__ import annotations

import ast
from typing import Any

from _extract_pysrc import Module, Package, Unresolved, _last, _text, value

#: How deep classes may nest into one another's schema (models of models); deeper is not read.
MAX_DEPTH = 16

_BASIC = {"str": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number"},
          "bool": {"type": "boolean"}, "bytes": {"type": "string"}, "Any": {},
          "object": {}, "dict": {"type": "object"}, "Dict": {"type": "object"},
          "Mapping": {"type": "object"}, "list": {"type": "array"}, "List": {"type": "array"},
          "NoneType": {"type": "null"}, "None": {"type": "null"},
          "datetime": {"type": "string", "format": "date-time"},
          "date": {"type": "string", "format": "date"}, "UUID": {"type": "string",
                                                                "format": "uuid"},
          "Path": {"type": "string", "format": "path"}, "Decimal": {"type": "number"},
          "AnyUrl": {"type": "string", "format": "uri"}, "HttpUrl": {"type": "string",
                                                                   "format": "uri"},
          "EmailStr": {"type": "string", "format": "email"}, "JsonValue": {},
          "StrictStr": {"type": "string"}, "StrictInt": {"type": "integer"},
          "StrictBool": {"type": "boolean"}, "StrictFloat": {"type": "number"},
          "PositiveInt": {"type": "integer", "exclusiveMinimum": 0},
          "NonNegativeInt": {"type": "integer", "minimum": 0},
          "PositiveFloat": {"type": "number", "exclusiveMinimum": 0},
          "NonNegativeFloat": {"type": "number", "minimum": 0},
          "SecretStr": {"type": "string", "format": "password", "writeOnly": True}}
_ARRAYS = {"list", "List", "Sequence", "Iterable", "set", "Set", "frozenset", "tuple", "Tuple"}
_MAPS = {"dict", "Dict", "Mapping", "MutableMapping"}
_BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum",
           "min_length": "minLength", "max_length": "maxLength", "pattern": "pattern"}


def _field(pkg: Package, mod: Module, call: ast.Call) -> tuple[dict[str, Any], bool, Any]:
    """``(schema keywords, has_default, default)`` of a ``Field(...)`` call."""
    out: dict[str, Any] = {}
    has_default, default = False, None
    if call.args:
        first = call.args[0]
        if not (isinstance(first, ast.Constant) and first.value is Ellipsis):
            has_default, default = True, _default(pkg, mod, first)
    for kw in call.keywords:
        if kw.arg == "default":
            has_default, default = True, _default(pkg, mod, kw.value)
        elif kw.arg == "default_factory":
            has_default, default = True, _NO_DEFAULT
        elif kw.arg in ("description", "title"):
            out[kw.arg] = _text(value(pkg, mod, kw.value))
        elif kw.arg in _BOUNDS:
            try:
                out[_BOUNDS[kw.arg]] = value(pkg, mod, kw.value)
            except Unresolved:
                pass  # a bound computed at run time (from the environment): left out
        elif kw.arg == "examples":
            out["examples"] = value(pkg, mod, kw.value)
        elif kw.arg in ("alias", "validation_alias", "serialization_alias", "json_schema_extra",
                        "discriminator"):
            raise Unresolved(f"Field({kw.arg}=...) changes the schema in ways not read")
    return out, has_default, default


_NO_DEFAULT = object()


def _default(pkg: Package, mod: Module, node: ast.AST) -> Any:
    """A default's value, or ``_NO_DEFAULT`` when it is computed (it exists; not read)."""
    try:
        return value(pkg, mod, node)
    except Unresolved:
        return _NO_DEFAULT


def _is_context(node: ast.AST | None) -> bool:
    """A ``Context`` parameter (FastMCP injects it and leaves it out of the schema)."""
    if node is None:
        return False
    return any(isinstance(n, ast.Name | ast.Attribute) and _last(n).endswith("Context")
               for n in ast.walk(node))


def type_schema(pkg: Package, mod: Module, node: ast.AST, depth: int = 0) -> dict[str, Any]:
    """The JSON Schema pydantic would give an annotation (models and enums inlined)."""
    if depth > MAX_DEPTH:
        raise Unresolved("types nest too deep")
    if isinstance(node, ast.Constant):
        if node.value is None:
            return {"type": "null"}
        if isinstance(node.value, str):
            return type_schema(pkg, mod, ast.parse(node.value, mode="eval").body, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([node.left, node.right], pkg, mod, depth)
    if isinstance(node, ast.Subscript):
        head = _last(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return _union([args[0], ast.Constant(None)], pkg, mod, depth)
        if head == "Union":
            return _union(args, pkg, mod, depth)
        if head == "Annotated":
            schema = type_schema(pkg, mod, args[0], depth + 1)
            for extra in args[1:]:
                if isinstance(extra, ast.Call) and _last(extra.func) == "Field":
                    schema = {**schema, **_field(pkg, mod, extra)[0]}
                elif isinstance(extra, ast.Constant) and isinstance(extra.value, str):
                    schema = {**schema, "description": extra.value}  # as fastmcp reads it
            return schema
        if head == "Literal":
            values = [value(pkg, mod, a) for a in args]
            kinds = {type(v) for v in values}
            out: dict[str, Any] = {"enum": values}
            if kinds == {str}:
                out["type"] = "string"
            elif kinds == {int}:
                out["type"] = "integer"
            return out
        if head in _ARRAYS:
            if head in ("tuple", "Tuple") and not (len(args) == 2 and isinstance(
                    args[1], ast.Constant) and args[1].value is Ellipsis):
                return {"type": "array"}
            return {"type": "array", "items": type_schema(pkg, mod, args[0], depth + 1)}
        if head in _MAPS:
            return {"type": "object"}
        if head in ("Required", "NotRequired", "ReadOnly"):
            return type_schema(pkg, mod, args[0], depth + 1)
        raise Unresolved(f"generic type {head}[...] not read")
    if isinstance(node, ast.Name | ast.Attribute):
        name = _last(node)
        if name in _BASIC:
            return dict(_BASIC[name])
        owner, cls = _class_or_alias(pkg, mod, name)
        if not isinstance(cls, ast.ClassDef):
            return type_schema(pkg, owner, cls, depth + 1)
        return _class_schema(pkg, owner, cls, depth + 1)
    raise Unresolved(f"type not read ({type(node).__name__})")


def _class_or_alias(pkg: Package, mod: Module, name: str) -> tuple[Module, Any]:
    try:
        return pkg.lookup(mod, name, "class")
    except Unresolved:
        return pkg.lookup(mod, name, "const")


def _union(members: list[ast.AST], pkg: Package, mod: Module, depth: int) -> dict[str, Any]:
    schemas = []
    for m in members:
        s = type_schema(pkg, mod, m, depth + 1)
        schemas.extend(s["anyOf"] if set(s) == {"anyOf"} else [s])
    return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}


def _class_schema(pkg: Package, mod: Module, cls: ast.ClassDef, depth: int,
                  as_base: bool = False) -> dict[str, Any]:
    bases = {_last(b) for b in cls.bases}
    doc = ast.get_docstring(cls, clean=True)
    if bases & {"Enum", "StrEnum", "IntEnum"}:
        values = [value(pkg, mod, s.value) for s in cls.body
                  if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)]
        out: dict[str, Any] = {"enum": values}
        if all(isinstance(v, str) for v in values):
            out["type"] = "string"
        elif all(isinstance(v, int) for v in values):
            out["type"] = "integer"
        return out
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    kind = "TypedDict" if "TypedDict" in bases else "BaseModel"
    for base in cls.bases:
        if _last(base) in ("BaseModel", "TypedDict", "Generic", "object"):
            continue
        owner, parent = _class_or_alias(pkg, mod, _last(base))
        if not isinstance(parent, ast.ClassDef):
            raise Unresolved(f"base {_last(base)} of {cls.name} is not a class")
        schema = _merge_fields(schema, _split(_class_schema(pkg, owner, parent, depth + 1,
                                                           True)), None)
    if not as_base and not bases & {"BaseModel", "TypedDict"} and not schema["properties"] \
            and not any(_last(b) not in ("Generic", "object") for b in cls.bases):
        raise Unresolved(f"class {cls.name} is not a model, enum or TypedDict")
    return _merge_fields(schema, _model_fields(pkg, mod, cls, depth, kind), doc)


def _split(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    if schema.get("type") != "object" or "properties" not in schema:
        raise Unresolved("a base class that is not a model")
    return schema["properties"], schema.get("required", [])


def _merge_fields(base: dict[str, Any], fields: tuple[dict[str, Any], list[str]],
                  doc: str | None) -> dict[str, Any]:
    props, required = fields
    out = {"type": "object", "properties": {**base.get("properties", {}), **props}}
    req = [r for r in base.get("required", []) if r not in props] + required
    if req:
        out["required"] = req
    if doc:
        out["description"] = doc
    return out


def _model_fields(pkg: Package, mod: Module, cls: ast.ClassDef, depth: int, kind: str
                  ) -> tuple[dict[str, Any], list[str]]:
    props: dict[str, Any] = {}
    required: list[str] = []
    total = not any(k.arg == "total" and isinstance(k.value, ast.Constant)
                    and k.value.value is False for k in cls.keywords)
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if _last(stmt.annotation) == "ClassVar" or (isinstance(stmt.annotation, ast.Subscript)
                                                    and _last(stmt.annotation.value)
                                                    == "ClassVar"):
            continue
        schema, has_default, default = _param(pkg, mod, stmt.annotation, stmt.value, depth)
        if kind == "TypedDict":
            has_default = not total or (isinstance(stmt.annotation, ast.Subscript)
                                        and _last(stmt.annotation.value) == "NotRequired")
        props[stmt.target.id] = schema
        if not has_default:
            required.append(stmt.target.id)
    return props, required


def _param(pkg: Package, mod: Module, annotation: ast.AST | None, default: ast.AST | None,
           depth: int = 0) -> tuple[dict[str, Any], bool, Any]:
    """``(schema, optional, default)`` of one parameter or model field."""
    schema = type_schema(pkg, mod, annotation, depth) if annotation is not None else {}
    has_default, dval = False, _NO_DEFAULT
    if isinstance(annotation, ast.Subscript) and _last(annotation.value) == "Annotated":
        for extra in annotation.slice.elts[1:]:
            if isinstance(extra, ast.Call) and _last(extra.func) == "Field":
                _, has, got = _field(pkg, mod, extra)
                if has:
                    has_default, dval = True, got
    if default is not None:
        if isinstance(default, ast.Call) and _last(default.func) == "Field":
            extra, has, got = _field(pkg, mod, default)
            schema = {**schema, **extra}
            if has:
                has_default, dval = True, got
        else:
            has_default, dval = True, _default(pkg, mod, default)
    if has_default and dval is not _NO_DEFAULT:
        schema = {**schema, "default": dval}
    return schema, has_default, dval


def _signature_schema(pkg: Package, mod: Module, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                      drop: set[str]) -> dict[str, Any]:
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults: list[ast.AST | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    props: dict[str, Any] = {}
    required: list[str] = []
    for i, (arg, default) in enumerate(pairs):
        if (i == 0 and arg.arg in ("self", "cls")) or arg.arg in drop \
                or _is_context(arg.annotation):
            continue
        schema, has_default, _ = _param(pkg, mod, arg.annotation, default)
        props[arg.arg] = schema
        if not has_default:
            required.append(arg.arg)
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out
