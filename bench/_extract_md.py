"""Tool definitions from a README whose tool list is generated from the tools themselves.

microsoft/playwright-mcp's README is written by its ``update-readme.js`` from each tool's
schema, one block per tool::

    - **browser_click**
      - Title: Click
      - Description: Perform click on a web page
      - Parameters:
        - `element` (string, optional): Human-readable element description ...
      - Read-only: **false**

Each block becomes a tool: name, title, description; parameters with their type, whether
optional, and description (nothing else of the schema is listed, so nothing else is stored);
``Read-only`` as the ``readOnlyHint`` annotation. Blocks that do not match this shape exactly
are skipped.
"""

from __future__ import annotations

import re
from typing import Any

_TOOL = re.compile(r"^- \*\*([A-Za-z0-9_.-]+)\*\*\s*$")
_FIELD = re.compile(r"^  - (Title|Description|Read-only): (.*)$")
_PARAM = re.compile(r"^    - `([^`]+)` \(([a-z]+)(, optional)?\): ?(.*)$")
_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


def extract(files: dict[str, str], opts: dict[str, Any]
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tool records and skips from the README named by ``opts["readme"]``."""
    path = opts["readme"]
    lines = files[path].splitlines()
    tools, skipped = [], []
    i = 0
    while i < len(lines):
        m = _TOOL.match(lines[i])
        if not m:
            i += 1
            continue
        name, start = m.group(1), i
        fields: dict[str, str] = {}
        props: dict[str, Any] = {}
        required: list[str] = []
        bad = None
        i += 1
        while i < len(lines) and lines[i].startswith("  "):
            line = lines[i]
            f = _FIELD.match(line)
            p = _PARAM.match(line)
            if f:
                fields[f.group(1)] = f.group(2)
            elif line == "  - Parameters:" or line.strip() == "- Parameters: None":
                pass
            elif p and p.group(2) in _TYPES:
                prop: dict[str, Any] = {"type": p.group(2)}
                if p.group(4):
                    prop["description"] = p.group(4)
                props[p.group(1)] = prop
                if not p.group(3):
                    required.append(p.group(1))
            else:
                bad = f"line {i + 1} not of the generated shape"
            i += 1
        if bad or "Description" not in fields:
            skipped.append({"name": name, "file": path, "line": start + 1,
                            "reason": bad or "no Description line"})
            continue
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        tool: dict[str, Any] = {"name": name}
        if "Title" in fields:
            tool["title"] = fields["Title"]
        tool["description"] = fields["Description"]
        tool["inputSchema"] = schema
        ro = fields.get("Read-only", "").strip("*")
        if ro in ("true", "false"):
            tool["annotations"] = {"readOnlyHint": ro == "true"}
        tools.append({"tool": tool, "file": path, "line": start + 1, "schema": None})
    return tools, skipped
