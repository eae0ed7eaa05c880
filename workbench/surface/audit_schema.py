"""The schema cross-check: what a tool's description says against what its schema asks for.

Three ways the two disagree, each a warning with the parameter or sentence as evidence:

- ``params.phantom``: the text promises a parameter the schema lacks;
- ``params.sink``: a free-text parameter the tool's purpose never explains, named like a place
  to drop data (``notes``, ``context``, ``debug``, ``metadata``), or asking for the
  conversation, the environment or credentials (then ``high``: no honest reading);
- ``schema.contradiction``: a read-only or offline claim beside a destructive name,
  side-effecting parameters, network parameters or annotations that say otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.surface.audit_text import sentences, words_of

__all__ = ["check_schema", "phantom_params"]

# "the `limit` parameter", "parameter called depth", "pass `q` as ..."
_QUOTED = r"[`'\"]([A-Za-z_][A-Za-z0-9_]*)[`'\"]"
# Not "fields": responses have fields too ("the `lastPage` field" is output, not input).
_PARAM_WORD = r"(?:parameters?|params?|arguments?|args?|options?|flags?|inputs?)"
_PARAM_REF = re.compile(
    rf"{_QUOTED}\s+{_PARAM_WORD}\b"
    rf"|\b{_PARAM_WORD}\s+(?:named\s+|called\s+)?{_QUOTED}"
    rf"|\b{_PARAM_WORD}\s+(?:named|called)\s+([A-Za-z_][A-Za-z0-9_]*)"
    rf"|\b(?:set|pass|provide|use)\s+(?:the\s+)?{_QUOTED}\s+(?:to|as|argument|parameter)\b",
    re.IGNORECASE,
)


def phantom_params(text: str, properties: Iterable[str]) -> list[tuple[str, int, int]]:
    """Parameters ``text`` refers to that are not in ``properties``: ``(name, start, end)``."""
    known = set(properties)
    out = []
    for match in _PARAM_REF.finditer(text):
        name = next(g for g in match.groups() if g)
        if name not in known:
            out.append((name, match.start(), match.end()))
    return out


# Parameter names that are places to drop data. Sensitive ones ask for what a tool never
# needs unless that is its subject (the conversation, the environment, credentials).
_SINKS = frozenset({"note", "notes", "sidenote", "context", "debug", "metadata", "meta",
                    "extra", "info", "details", "memo", "comment", "comments", "feedback",
                    "remarks", "misc", "summary", "reasoning", "trace", "log", "logs"})
# Each sensitive sink with the words that make it a tool's own subject: a login tool may ask
# for a password, a chat exporter for the conversation.
_FAMILIES = (
    (frozenset({"secret", "secrets", "credential", "credentials", "password", "passwords",
                "token", "tokens", "cookies", "keys", "passphrase"}),
     frozenset({"secret", "credential", "password", "token", "cookie", "auth", "login",
                "vault", "aws", "ssh", "gpg", "dotenv", "oauth", "passphrase", "key"})),
    (frozenset({"conversation", "history", "chat", "messages", "transcript"}),
     frozenset({"conversation", "history", "chat", "message", "transcript"})),
    (frozenset({"prompt", "instructions", "system"}) , frozenset({"prompt", "instruction"})),
    (frozenset({"env", "environment"}),
     frozenset({"env", "environment", "variable", "dotenv"})),
    (frozenset({"profile", "contacts", "location"}),
     frozenset({"profile", "contact", "location", "account", "address"})),
)
_SENSITIVE_SINKS = frozenset().union(*(words for words, _ in _FAMILIES))
# A parameter text that points at the session or the user: what the model knows, not input.
_POINTS_AT_SESSION = re.compile(r"\b(?:you|your|user'?s?|so\s+far|mentioned|recent|previous|"
                                r"everything)\b", re.IGNORECASE)
_SINK_GATE = re.compile("|".join(sorted(_SINKS | _SENSITIVE_SINKS)), re.IGNORECASE)
_FREE_TYPES = (None, "string", "object", "array")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _free_text(schema: Mapping[str, Any]) -> bool:
    if "enum" in schema or "const" in schema or "format" in schema:
        return False
    kind = schema.get("type")
    if isinstance(kind, list):
        return any(k in _FREE_TYPES for k in kind)
    return kind in _FREE_TYPES


_READ_ONLY_CLAIM = re.compile(
    r"\bread[\s-]?only\b|\bnever\s+(?:changes?|modif(?:y|ies)|writes?|deletes?|alters?|"
    r"touch(?:es)?)\b|\b(?:does\s+not|doesn't|do\s+not|will\s+not|won't)\s+(?:modify|change|"
    r"touch|write|alter|delete)\b|\bchanges\s+nothing\b|\b(?:no|without)\s+side[\s-]effects\b"
    r"|\bnothing\s+(?:is|gets)\s+(?:modified|changed|written|deleted)\b"
    r"|\b(?:view|viewing)[\s-]only\b|\bpurely\s+informational\b|\bnon[\s-]destructive\b|\bsafely\s+(?:shows|reads|lists)\b",
    re.IGNORECASE)
_OFFLINE_CLAIM = re.compile(
    r"\boffline\b|\bno\s+network\b|\bno\s+data\s+leaves\b|\bnever\s+leaves\b|"
    r"\bnothing\s+(?:else\s+)?is\s+sent\b|\bonly\s+needs\b|\bnever\s+sends?\b",
    re.IGNORECASE)
_WRITES = frozenset({"delete", "remove", "drop", "purge", "destroy", "wipe", "erase", "reset",
                     "overwrite", "kill", "push", "send", "post", "write", "update", "create",
                     "add", "set", "move", "rename", "commit", "upload", "publish", "revoke",
                     "replace", "force", "persist", "truncate", "merge", "share"})
_NETWORK = frozenset({"url", "uri", "callback", "webhook", "endpoint", "upload", "host",
                      "server", "email", "post", "remote"})


def check_schema(tool: Mapping[str, Any], description: str, props: Mapping[str, Any],
                 purpose_text: str) -> list[tuple[str, str, str, int, int, str, str]]:
    """Cross-check one tool: ``(code, severity, field, start, end, reason, text)`` each.

    ``purpose_text`` is the tool's name and title: what the tool says it is for.
    """
    out: list[tuple[str, str, str, int, int, str, str]] = []
    said: set[str] | None = None  # computed only when a parameter looks like a sink
    for param, schema in props.items():
        if not isinstance(schema, Mapping) or not _SINK_GATE.search(param) or not _free_text(
                schema):
            continue
        words = words_of(param)
        sensitive = words & _SENSITIVE_SINKS
        if not (sensitive or words & _SINKS):
            continue
        if said is None:
            said = {_stem(w) for w in words_of(description, purpose_text)}
        if {_stem(w) for w in words} & said:
            continue  # the tool's own text explains it
        sensitive = {w for w in sensitive if not any(
            w in family and said & subject for family, subject in _FAMILIES)}
        text = schema.get("description") if isinstance(schema.get("description"), str) else ""
        if text and not _POINTS_AT_SESSION.search(text):
            sensitive = set()  # explained as something else: "env: staging or production"
        if not sensitive and not words & _SINKS:
            continue  # a credential parameter on a tool about credentials
        field = f"parameters.{param}"
        if sensitive:
            out.append(("params.sink", "high", field, -1, -1,
                        f"parameter {param!r} asks for {', '.join(sorted(sensitive))}, which "
                        "this tool's purpose never mentions", text or param))
        else:
            out.append(("params.sink", "warning", field, -1, -1,
                        f"free-text parameter {param!r} that the description never explains: "
                        "a place to drop data", text or param))
    claims = _READ_ONLY_CLAIM.search(description) or _OFFLINE_CLAIM.search(description)
    for offset, sentence in sentences(description) if claims else ():
        m = _READ_ONLY_CLAIM.search(sentence)
        if m:
            why = _writes(tool, props)
            if why:
                out.append(("schema.contradiction", "warning", "description",
                            offset + m.start(), offset + m.end(),
                            f"claims to change nothing, but {why}", description))
        m = _OFFLINE_CLAIM.search(sentence)
        if m:
            why = _network(tool, props, description)
            if why:
                out.append(("schema.contradiction", "warning", "description",
                            offset + m.start(), offset + m.end(),
                            f"claims to send nothing, but {why}", description))
    for missing, start, end in phantom_params(description, props):
        out.append(("params.phantom", "warning", "description", start, end,
                    f"refers to parameter {missing!r}, which the schema lacks", description))
        break
    return out


def _writes(tool: Mapping[str, Any], props: Mapping[str, Any]) -> str:
    hit = words_of(str(tool.get("name", ""))) & _WRITES
    if hit:
        return f"its name says {sorted(hit)[0]!r}"
    for param, schema in props.items():
        text = schema.get("description", "") if isinstance(schema, Mapping) else ""
        hit = words_of(param, text if isinstance(text, str) else "") & _WRITES
        if hit:
            return f"parameter {param!r} says {sorted(hit)[0]!r}"
    hints = tool.get("annotations") or {}
    if isinstance(hints, Mapping) and hints.get("destructiveHint") is True:
        return "its annotations say destructive"
    return ""


def _network(tool: Mapping[str, Any], props: Mapping[str, Any], description: str) -> str:
    for param in props:
        hit = words_of(param) & _NETWORK
        if hit:
            return f"parameter {param!r} is a {sorted(hit)[0]}"
    schema = tool.get("inputSchema") or {}
    required = schema.get("required") if isinstance(schema, Mapping) else None
    said = {_stem(w) for w in words_of(description)}
    for param in required or ():
        if isinstance(param, str) and not {_stem(w) for w in words_of(param)} & said:
            return f"required parameter {param!r} is never explained"
    hints = tool.get("annotations") or {}
    if isinstance(hints, Mapping) and hints.get("openWorldHint") is True:
        return "its annotations say open world"
    return ""
