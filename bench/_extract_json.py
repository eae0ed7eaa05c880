"""Tool definitions kept as JSON data in a repository (descriptions and annotations by name).

Options: ``definitions``, the path of a JSON object ``{tool_name: {"description", "title",
"annotations", ...}}``; ``schemas`` (optional), the path of a JSON Schema document whose
``definitions`` hold the input schemas; ``schema_names``, ``{tool_name: definition name}``
read from the server's TypeScript by :func:`schema_names`. Nothing is executed.
"""

from __future__ import annotations

import json
from typing import Any

from _extract_js import HINTS, Project, Unresolved
from _extract_parse import Parser


def schema_names(files: dict[str, str], module: str) -> dict[str, str]:
    """``{tool name: imported name}`` for objects ``{name: "...", schema}`` whose schema is a
    name imported from ``module`` (followed through ``const`` declarations)."""
    proj = Project({p: t for p, t in files.items() if p.endswith(".ts")}, {"z"})
    out: dict[str, str] = {}
    for f in proj.files.values():
        for i, (kind, val, _) in enumerate(f.toks):
            if kind != "p" or val != "{":
                continue
            p = Parser(f.toks, newlines=f.newlines)
            p.pos = i
            try:
                node = p.obj()
            except (SyntaxError, IndexError):
                continue
            fields = {k: v for k, v in node[1] if isinstance(k, str)}
            if "name" not in fields or "schema" not in fields:
                continue
            try:
                name = proj.value(fields["name"], f)
            except Unresolved:
                continue
            ref, where = fields["schema"], f
            for _ in range(10):
                if ref[0] != "id":
                    break
                if ref[1] in where.imports and where.imports[ref[1]][0] == module:
                    out[name] = where.imports[ref[1]][1]
                    break
                found = where.decls.get(ref[1])
                if not found or len(found) != 1:
                    break
                ref = found[0]
    return out


def extract(files: dict[str, str], opts: dict[str, Any]
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tool records and skips from the JSON files named in ``opts``."""
    defs = json.loads(files[opts["definitions"]])
    schemas = json.loads(files[opts["schemas"]]).get("definitions", {}) \
        if opts.get("schemas") else {}
    names = schema_names(files, opts["schema_module"]) if opts.get("schema_module") else {}
    tools, skipped = [], []
    for name, d in defs.items():
        if not isinstance(d.get("description"), str):
            skipped.append({"name": name, "file": opts["definitions"],
                            "reason": "no description string"})
            continue
        tool: dict[str, Any] = {"name": name}
        if isinstance(d.get("title"), str):
            tool["title"] = d["title"]
        tool["description"] = d["description"]
        note = None
        schema = schemas.get(names.get(name, ""))
        if isinstance(schema, dict):
            tool["inputSchema"] = {k: v for k, v in schema.items()
                                   if k not in ("$schema", "additionalProperties")}
        else:
            tool["inputSchema"], note = {"type": "object"}, "no schema found for this tool"
        ann = d.get("annotations")
        if isinstance(ann, dict):
            ann = {k: ann[k] for k in HINTS if ann.get(k) is not None}
            if ann:
                tool["annotations"] = ann
        tools.append({"tool": tool, "file": opts["definitions"], "line": 0, "schema": note})
    return tools, skipped
