"""Read MCP tool definitions out of fetched server repositories into the audit's baseline.

Input: ``bench/baseline_sources.json``, one entry per server: the repository (a snapshot
fetched onto this machine, a bare git directory under ``/work/.mirror/<owner>+<name>/repo``),
its licence, the files to read (globs), and how (``python``, ``ts`` or ``go``). Output:
``tests/data/audit_corpus/baseline/<server>.json`` per server, ``{"server", "repository",
"commit", "licence", "licence_file", "source_files", "extraction", "tools", "skipped"}``.

Files are read with ``git show <commit>:<path>`` and parsed as text (Python with :mod:`ast`,
TypeScript/JavaScript and Go with the small tokenizer in ``_extract_lex``); nothing fetched is
executed, imported or built. Only data is kept: a tool's name, title, description, input and
output schema and annotations. A tool whose name or description cannot be read reliably is
skipped (and listed under ``skipped`` with why); a schema that cannot be read is stored as
``{"type": "object"}`` with ``"schema": "not extracted"`` on the tool.

Usage::

    python bench/extract_tool_definitions.py            # every server of the manifest
    python bench/extract_tool_definitions.py neon ...   # only these servers
"""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import _extract_go
import _extract_json
import _extract_md
import _extract_py
import _extract_ts
from _common import REPO

MANIFEST = Path(__file__).resolve().parent / "baseline_sources.json"
OUT = REPO / "tests/data/audit_corpus/baseline"
MIRRORS = Path("/work/.mirror")
#: Largest source file read; bigger ones are generated bundles, not tool definitions.
MAX_FILE_BYTES = 2_000_000
#: Most files one server's globs may select, so a loose glob cannot read a whole monorepo.
MAX_FILES = 600
WIRE_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")

HOW = {
    "python": "parsed with Python's ast (not executed): functions registered with "
              "@<server>.tool / <server>.tool(...)(fn) or Tool(...) literals; description = "
              "the decorator's description= or the docstring (inspect.cleandoc); inputSchema "
              "derived from the signature as pydantic would (Context parameters dropped, "
              "Field/Annotated read, models and enums of the same files inlined, no "
              "generated property titles); annotations from ToolAnnotations(...) or a dict",
    "ts": "tokenized and parsed as TypeScript/JavaScript text (not executed): tool "
          "registrations ({patterns}); strings, template literals, concatenations and "
          "constants of the files read (through their imports) resolved; zod schemas "
          "converted to JSON Schema (types, properties, required, descriptions, enums, "
          "defaults, bounds; $schema and additionalProperties not generated); JSON-schema "
          "object literals taken as written; only the standard annotation hints kept",
    "go": "tokenized and parsed as Go text (not executed): {patterns}; string constants of "
          "the package resolved; only the standard annotation hints kept",
    "json": "read from JSON data files of the repository: {patterns}",
    "markdown": "read from a tool list the repository generates from its tools' schemas: "
                "{patterns}",
}


def git(repo: Path, *args: str) -> str:
    """Output of one read-only git command on a bare snapshot."""
    return subprocess.run(["git", f"--git-dir={repo}", *args], check=True,
                          capture_output=True, text=True).stdout


def _matches(path: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, g) for g in globs)


def read_files(repo: Path, commit: str, entry: dict[str, Any]) -> dict[str, str]:
    """``{path: text}`` of the files an entry's globs select at ``commit``."""
    listing = git(repo, "ls-tree", "-r", "-l", commit).splitlines()
    chosen: dict[str, str] = {}
    for line in listing:
        meta, path = line.split("\t", 1)
        size = meta.split()[3]
        if not _matches(path, entry["files"]) or _matches(path, entry.get("exclude", [])):
            continue
        if size == "-" or int(size) > MAX_FILE_BYTES:
            continue
        chosen[path] = git(repo, "show", f"{commit}:{path}")
        if len(chosen) > MAX_FILES:
            raise SystemExit(f"{entry['server']}: its globs select over {MAX_FILES} files; "
                             "narrow 'files' in the manifest")
    return chosen


def extract(entry: dict[str, Any]) -> dict[str, Any]:
    """One server's baseline file, as a dict."""
    owner, name = entry["repository"].split("/")
    repo = MIRRORS / f"{owner}+{name}" / "repo"
    commit = git(repo, "rev-parse", entry.get("commit", "HEAD")).strip()
    files = read_files(repo, commit, entry)
    opts = entry.get("options", {})
    lang = entry["lang"]
    if lang == "python":
        records, skipped = _extract_py.extract(files, opts.get("attr", "tool"),
                                               set(opts.get("drop_params", [])),
                                               set(opts.get("decorators", [])))
    elif lang == "ts":
        records, skipped = _extract_ts.extract(files, opts)
    elif lang == "go":
        records, skipped = _extract_go.extract(files, opts)
    elif lang == "json":
        records, skipped = _extract_json.extract(files, opts)
    elif lang == "markdown":
        records, skipped = _extract_md.extract(files, opts)
    else:
        raise SystemExit(f"{entry['server']}: lang must be python, ts, go, json or markdown, "
                         f"not {lang!r}")
    tools, seen, used = [], {}, set()
    only = set(opts.get("only_tools", []))
    for rec in sorted(records, key=lambda r: (r["file"], r.get("line", 0))):
        tool = {k: rec["tool"][k] for k in WIRE_KEYS if k in rec["tool"]}
        for path_glob, prefix in opts.get("prefix_by_file", {}).items():
            if fnmatch.fnmatchcase(rec["file"], path_glob):  # a mounted sub-server's namespace
                tool["name"] = prefix + tool["name"]
        if only and tool["name"] not in only:
            continue
        if tool["name"] in opts.get("skip_tools", []):
            continue
        if rec["tool"].get("annotations_note"):
            tool["annotations_note"] = rec["tool"]["annotations_note"][:200]
        if rec.get("schema"):
            tool["inputSchema"] = {"type": "object"}  # a part not read: none of it is kept
            tool["schema"] = "not extracted"
            tool["schema_note"] = rec["schema"][:200]
        if tool["name"] in seen:
            if seen[tool["name"]] != tool:
                skipped.append({"name": tool["name"], "file": rec["file"],
                                "reason": "a second, different definition with the same name "
                                          "(the first one read is kept)"})
            continue
        seen[tool["name"]] = tool
        used.add(rec["file"])
        tools.append(tool)
    how = HOW[lang].format(patterns=opts.get("how", "see the manifest entry's options"))
    if entry.get("note"):
        how += "; " + entry["note"]
    return {"server": entry["server"], "repository": entry["repository"], "commit": commit,
            "licence": entry["licence"], "licence_file": entry["licence_file"],
            "source_files": sorted(used), "extraction": how, "tools": tools,
            "skipped": skipped}


README_HEAD = """# Honest baseline: real tools from public MCP servers

Real tool definitions (data only: name, title, description, inputSchema, outputSchema,
annotations) read from {servers} public MCP servers in {repos} repositories, none of them in the
rest of this corpus (not the reference servers, not GitHub's server, not the archived
reference servers; `mcp-redis`, `slack-korotovsky`, `filesystem-mark3labs` and the postgres
servers serve a product one of those serves, but are other implementations with their own
texts). **No audit rule is ever written from this set**: it only measures false
alarms (`python bench/bench_audit_baseline.py`). Every finding at warning or above on it is
a false alarm, because nothing here was written to attack anything.

Made by `python bench/extract_tool_definitions.py` from the snapshots `fetch` brings (bare git
directories under `/work/.mirror/`), as listed in `bench/baseline_sources.json`. The files
are read as text at the recorded commit (`git show`); no fetched code is executed, imported,
built or copied: Python is parsed with `ast`, TypeScript/JavaScript and Go by a small
tokenizer (`bench/_extract_lex.py`), JSON and a generated README as data. Each server file
records `repository`, `commit`, `licence` (and `licence_file`), `source_files` and
`extraction` (how its tools were read), and lists under `skipped` the tools it could not
read reliably (a name or description computed at run time, a factory that builds the tool
from arguments, ...): those are left out, never guessed. A schema that could not be read is
stored as `{{"type": "object"}}` with `"schema": "not extracted"` and why (`schema_note`); a
bound or pattern computed at run time is left out of an otherwise read schema;
annotations that could not be read are left out with `annotations_note`.

What differs from a live `tools/list`: pydantic's generated property titles, `$schema` and
`additionalProperties` are not generated; models and enums are inlined rather than put in
`$defs`; only the five standard annotation keys are kept. Only permissively licensed
repositories (MIT, Apache-2.0, BSD-3-Clause, MPL-2.0) are used; each repository's licence
file is named per server.

{tools} tools, {unread} of them with the schema not extracted.

First score, before anything could have been tuned on this set (the audit at commit
`81162d0`, each server audited alone): 354 of 2,192 tools (16.1%) flagged at warning or
above, 148 at high; 179/847 (21.1%) on the 51 awslabs/mcp servers, 175/1,345 (13.0%) on the
other 52; 67 of 103 servers have at least one. The most frequent codes: `secret.param`
(114 findings on 101 tools, but 23 distinct texts on 12 servers: one healthomics parameter
repeated on 67 tools), `params.sink` (90), `data.user` (85), `schema.contradiction` (55).
Audited all in one environment, name collisions and cross-server shadowing between unrelated
servers flag 222 more. `bench/bench_audit_baseline.py` prints the current figures and every
flagged tool with its evidence.

| server | repository | commit | licence | tools | schema not extracted | skipped |
|---|---|---|---|---|---|---|
"""


def write_readme() -> None:
    """The baseline's README.md, its table made from the server files."""
    rows, tools, unread, repos = [], 0, 0, set()
    for path in sorted(OUT.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        n = len(data["tools"])
        bad = sum(1 for t in data["tools"] if t.get("schema"))
        tools, unread = tools + n, unread + bad
        repos.add(data["repository"])
        rows.append(f"| {data['server']} | {data['repository']} | {data['commit'][:8]} | "
                    f"{data['licence']} | {n} | {bad} | {len(data['skipped'])} |")
    head = README_HEAD.format(servers=len(rows), repos=len(repos), tools=tools, unread=unread)
    (OUT / "README.md").write_text(head + "\n".join(rows) + "\n", "utf-8")


def main(argv: list[str]) -> int:
    entries = json.loads(MANIFEST.read_text("utf-8"))
    wanted = set(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for entry in entries:
        if wanted and entry["server"] not in wanted:
            continue
        data = extract(entry)
        path = OUT / f"{entry['server']}.json"
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
        partial = sum(1 for t in data["tools"] if t.get("schema"))
        print(f"{entry['server']}: {len(data['tools'])} tools ({partial} schema not "
              f"extracted), {len(data['skipped'])} skipped, from "
              f"{len(data['source_files'])} files")
    write_readme()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
