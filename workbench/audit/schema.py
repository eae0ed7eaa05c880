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
from collections.abc import Set as AbstractSet
from typing import Any

from workbench.audit.claims import check_claims, check_hints
from workbench.audit.context import tokenised, words_of
from workbench.audit.excuses import mentions_user_data
from workbench.audit.gates import words_in
from workbench.audit.match import CaseBlind, compiled
from workbench.audit.params import NAME_TOKEN, VERB_SPLIT, Table, is_map, name_words, walk
from workbench.audit.rules import Rule
from workbench.audit.rules import schema as R

__all__ = ["REFERENCE_NAME", "check_schema", "phantom_params"]

# "the `limit` parameter", "parameter called depth", "pass `q` as ..."
# Lowercase classes in a case-blind pattern: it runs plain on the lowercased text (about
# 60% cheaper), and each name is then read from the text as written.
_QUOTED = r"[`'\"]([a-z_][a-z0-9_]*)[`'\"]"
# Not "fields": responses have fields too ("the `lastPage` field" is output, not input).
_PARAM_WORD = r"(?:parameters?|params?|arguments?|args?|options?|flags?|inputs?)"
# A reference is on one line: a quoted value that ends a line is not named by an "Input
# options" heading on the next.
_PARAM_REF = CaseBlind(
    rf"{_QUOTED}[ \t]+{_PARAM_WORD}\b"
    rf"|\b{_PARAM_WORD}\s+(?:named\s+|called\s+)?{_QUOTED}"
    rf"|\b{_PARAM_WORD}\s+(?:named|called)\s+([a-z_][a-z0-9_]*)"
    rf"|\b(?:set|pass|provide|use)\s+(?:the\s+)?{_QUOTED}\s+(?:to|as|argument|parameter)\b"
    # "pass `dry_run: true`", "set `force=false`": a name with its value.
    r"|\b(?:set|pass)\s+(?:the\s+)?[`'\"]([a-z_][a-z0-9_]*)\s*[:=]\s*(?:true|false|null|none|yes|"
    r"no|on|off|\d+)[`'\"]")


def phantom_params(text: str, properties: Iterable[str]) -> list[tuple[str, int, int]]:
    """Parameters ``text`` refers to that are not in ``properties``: ``(name, start, end)``."""
    if not ("`" in text or "'" in text or '"' in text or "named" in text or "called" in text):
        return []  # every reference is quoted or "named"/"called"
    known = set(properties)
    out = []
    for match in _PARAM_REF.finditer(text):
        group = next(g for g, value in enumerate(match.groups(), 1) if value)
        name = text[match.start(group):match.end(group)]
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
                "token", "tokens", "cookies", "passphrase", "apikey", "apikeys"}),
     frozenset({"secret", "credential", "password", "token", "cookie", "auth", "login",
                "vault", "aws", "ssh", "gpg", "dotenv", "oauth", "passphrase", "key"})),
    # A wallet's recovery words: only a wallet import or restore asks for them.
    (frozenset({"mnemonic", "seed", "recovery"}),
     frozenset({"import", "restore", "recover", "recovery", "mnemonic", "seed"})),
    # Who the user is: a tool about people or accounts may ask; a converter never needs it.
    (frozenset({"birth", "dob", "birthday", "ssn", "passport", "income", "salary", "employer",
                "maiden", "nationality", "religion", "ethnicity", "diagnosis"}),
     frozenset({"profile", "contact", "customer", "patient", "person", "people", "identity",
                "kyc", "employee", "applicant", "account", "payroll", "hr"})),
    (_CONVERSATION := frozenset({"conversation", "history", "chat", "messages", "transcript"}),
     frozenset({"conversation", "history", "chat", "message", "transcript", "thread", "email",
                "mail", "inbox"})),
    (frozenset({"prompt", "prompts", "instructions", "system"}),
     frozenset({"prompt", "instruction"})),
    (frozenset({"env", "environment"}),
     frozenset({"env", "environment", "variable", "dotenv", "launch", "run", "exec", "execute",
                "spawn", "process", "program", "command", "shell", "container", "deploy",
                "build", "start", "debug", "debugger"})),
    (frozenset({"profile", "contacts", "calendar"}),
     frozenset({"profile", "contact", "account", "address", "calendar", "crm", "people",
                "meeting", "schedule"})),
    (frozenset({"location", "locations"}),
     frozenset({"location", "map", "maps", "place", "places", "geo", "weather", "nearby",
                "directions", "route", "distance", "event", "calendar", "meeting", "venue",
                "trip", "travel", "booking", "delivery", "shipping", "shipment", "office"})),
)
_SENSITIVE_SINKS = frozenset().union(*(words for words, _ in _FAMILIES))
_KEY_KINDS = frozenset({"api", "private", "secret", "ssh", "access", "signing", "encryption",
                        "gpg", "pgp"})
# A parameter text that points at the session or the user: what the model knows, not input.
_SINK_WORDS = _SINKS | _SENSITIVE_SINKS | {"key", "keys"}
_FREE_TYPES = (None, "string", "object", "array")


# Words that explain nothing: "Optional. Any additional context that helps."
_VAGUE = frozenset({"optional", "additional", "extra", "any", "anything", "context", "info",
                    "information", "details", "detail", "helps", "help", "helpful", "useful",
                    "more", "misc", "other", "whatever", "notes", "note", "data", "the", "a",
                    "an", "and", "or", "of", "for", "to", "that", "this", "it", "is", "be",
                    "can", "may", "here", "if", "you", "want", "like", "relevant", "free",
                    "text", "field", "value", "string", "provide", "include", "with", "in",
                    "on", "as", "debug", "debugging", "metadata", "meta", "comments", "comment",
                    "remarks", "feedback", "summary", "log", "logs", "trace", "purposes",
                    "internal", "use", "used", "only", "better", "improve", "quality"})


# A description that solicits anything at all: "paste anything that could help".
_CATCH_ALL = CaseBlind(r"\b(?:anything|everything|whatever)\b|\b(?:any|extra|additional)\s+"
                        r"(?:other\s+)?(?:info|"
                        r"information|details|context|data)\b|\bthe\s+(?:longer|more)\s+the\s+"
                        r"better\b|\bin\s+full\b|\bwhy\s+you\b|\byour\s+(?:reasoning|thoughts|"
                        r"thinking|plan)\b|\bwhere\s+you\s+are\s+running\b|\babout\s+(?:your|"
                        r"the)\s+(?:environment|machine|host|system|setup|device)\b")


# Sinks that are a record's own fields when the tool writes one (a timesheet's comment).
_RECORD_FIELDS = frozenset({"note", "notes", "comment", "comments", "memo", "remarks",
                            "feedback", "summary", "details"})
# Key-value maps that records carry (Stripe's metadata, a resource's tags).
_MAP_FIELDS = frozenset({"metadata", "meta"})
_RECORDS = frozenset({"log", "record", "create", "add", "post", "submit", "save", "write",
                      "update", "set", "send", "file", "report", "book", "schedule", "append",
                      "insert", "upsert", "edit", "track", "register", "store"})


def _records(tool: Mapping[str, Any]) -> bool:
    """Whether the tool writes a record.

    Its name starts with a writing verb and its hints do not say read-only.
    """
    hints = tool.get("annotations")
    if is_map(hints) and hints.get("readOnlyHint") is True:
        return False
    first = VERB_SPLIT.split(str(tool.get("name", "")))[0].lower()
    return first in _RECORDS


def _explains(text: str) -> bool:
    """Whether a parameter description says what the value is for.

    Three or more words that are not filler: "Logpoint text printed instead of stopping",
    not "Any extra context".
    """
    return len(words_of(text) - _VAGUE) >= 3 and not _CATCH_ALL.search(text)


# Details of the user's machine: what reconnaissance asks for.
_RECON = CaseBlind(r"\b(?:hostname|host\s+name|user\s*name|os\s+version|operating\s+system|"
                    r"installed\s+(?:tools|software|packages|apps|programs)|running\s+processes|"
                    r"ip\s+address|mac\s+address|shell|home\s+directory|machine\s+(?:name|id)|"
                    r"device\s+id|environment\s+variables|kernel|cpu|serial\s+number|uname|"
                    r"printenv|(?<=`)env(?=`)|(?:the\s+)?(?:caller|user|client)'s\s+(?:machine|"
                    r"computer|host|workstation))\b")
# Words every reconnaissance phrase holds one of: fewer than two, and _RECON cannot find two.
_RECON_WORDS = frozenset({"hostname", "host", "user", "username", "os", "operating", "installed",
                          "running", "ip", "mac", "shell", "home", "machine", "device",
                          "environment", "kernel", "cpu", "serial", "name", "address",
                          "version", "system", "processes", "directory", "id", "number",
                          "variables", "uname", "printenv", "env", "computer", "workstation"})


_SYSTEM_TOPICS = frozenset({"system", "host", "machine", "device", "diagnostic", "diagnose",
                            "inventory", "sysinfo", "monitor", "process", "shell", "terminal",
                            "os", "environment", "env", "launch", "exec", "execute", "spawn"})


# "Takes a single argument, key." / "Parameters: path, width, height."
_ONLY_ARGS = compiled(
    r"\btakes\s+(?:a\s+single|one|only\s+one|just\s+one|only\s+an?|a\s+lone)\s+(?:argument|"
    r"parameter|input)\b|\b(?:parameters|arguments|inputs)\s*:\s*(?P<names>[`'\"]?[A-Za-z_]\w*[`'\"]?"
    r"(?:\s*(?:,|and|or)\s*[`'\"]?[A-Za-z_]\w*[`'\"]?)+)\s*\.", re.IGNORECASE)
# A compound's head says what it holds: "signing_secret_name" names a secret and
# "auth_token_update_strategy" picks a strategy; neither asks for the secret. A token named
# for what it pages, versions or makes idempotent is a handle the server issued.
REFERENCE_NAME = re.compile(
    r"(?:_|-|\b|(?<=[a-z]))(?:name|id|ids|ref|reference|arn|label|alias|type|types|kind|"
    r"pattern|scope|scopes|expiry|status|state|count|length|strategy|policy|mode|format|"
    r"rotation|ttl|level|config|configs|configuration|configurations|settings|enabled|"
    r"Name|Id|Ref|Arn|Label|Alias|Type|Types|Kind|Scope|Status|Strategy|Policy|"
    r"Mode|Format|Rotation|Ttl|Level|Config|Configuration|Configurations|Settings|Enabled)\Z|"
    r"\A(?:next|page|continuation|pagination|cursor|resume|sync|version|idempotency|client|"
    r"request|change)[_-]?(?:token|Token)\Z")
# A location defined as a place of a resource or a code, not where a person is.
_LOCATION = frozenset({"location", "locations"})
_RESOURCE_PLACE = compiled(r"\b(?:path|paths|url|urls|uri|git|repo|repository|file|files|"
                           r"directory|folder|bucket|country\s+code|region|zone|"
                           r"(?:iso|two|2)[\s-]letter)\b", re.IGNORECASE)
# A profile of a tool's own configuration (a cloud CLI's, a browser's), not a person's.
_TOOL_PROFILE = compiled(r"\b(?:aws|gcp|gcloud|azure|az|kube|kubectl|kubernetes|cli|browser|"
                         r"chrome|chromium|firefox|conda|credentials?|config(?:uration)?|"
                         r"named)[\s_-]+profiles?\b|\bprofiles?[\s_-]+(?:name|to\s+use)\b",
                         re.IGNORECASE)
# "from get_session_info()", "returned by `explain`": where a value comes from.
_FROM_TOOL = re.compile(r"\b(?:from|returned\s+by|as\s+returned\s+by|output\s+of|given\s+by|"
                        r"produced\s+by)\s+`?([A-Za-z_][\w.-]*)`?(?:\(\))?", re.IGNORECASE)


def _from_sibling(text: str, siblings: frozenset[str]) -> bool:
    """Whether a parameter's text says its value comes from one of the server's own tools.

    "Credentials token from get_aws_session_info()": a handle passed between the server's
    tools, not something the model is asked to bring from elsewhere.
    """
    return any(m.group(1) in siblings for m in _FROM_TOOL.finditer(text)) if siblings else False


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _free_text(schema: Mapping[str, Any]) -> bool:
    if "enum" in schema or "const" in schema or "format" in schema:
        return False
    kind = schema.get("type")
    if isinstance(kind, list):
        return any(k in _FREE_TYPES for k in kind)
    return kind in _FREE_TYPES


# Each hint the schema can contradict, with its rule.
_HINT_RULES = {"readOnlyHint": R.HINT_READ_ONLY, "openWorldHint": R.HINT_CLOSED_WORLD,
               "destructiveHint": R.HINT_NOT_DESTRUCTIVE}


def check_schema(tool: Mapping[str, Any], description: str, props: Mapping[str, Any],
                 purpose_text: str, siblings: frozenset[str] = frozenset(),
                 table: Table | None = None,
                 ) -> list[tuple[Rule, str, str, int, int, str, str]]:
    """Cross-check one tool: ``(rule, severity, field, start, end, reason, text)`` each.

    ``purpose_text`` is the tool's name and title: what the tool says it is for.
    ``siblings`` are the names of the server's other tools: a claim in a sentence that names
    one ("prefer query, which runs read-only") is about that tool, not this one. ``table``
    is ``tuple(walk(props))`` when the caller has walked it already.
    """
    out: list[tuple[Rule, str, str, int, int, str, str]] = []
    said: set[str] | None = None  # computed only when a parameter looks like a sink
    if table is None:
        table = tuple(walk(props))
    for path, param, schema in table:
        if not is_map(schema):
            continue
        text = schema.get("description")
        if not isinstance(text, str):
            text = ""
        # An object's own fields say what it asks for: {hostname, username, os, local_ip}.
        fields = schema.get("properties")
        if is_map(fields):
            asks = text + " " + " ".join(VERB_SPLIT.sub(" ", str(f)) for f in fields)
            said_words = words_in(asks.lower())
        else:  # the description alone, whose words the reading has (camelCase unsplit:
            asks = text  # each of _RECON's matches is whole words)
            said_words = tokenised[text][1]
        recon = _RECON.findall(asks) if asks and len(said_words & _RECON_WORDS) > 1 else []
        if recon and len({r.lower() for r in recon}) >= 2:
            if said is None:
                said = {_stem(w) for w in words_of(description, purpose_text)}
            if not said & _SYSTEM_TOPICS:
                out.append((R.MACHINE_DETAILS, "high", f"parameters.{path}", -1, -1,
                            f"parameter {path!r} asks for details of the user's machine "
                            f"({', '.join(sorted({r.lower() for r in recon})[:4])})", text))
                continue
        words = name_words(param)
        if _SINK_WORDS.isdisjoint(words) or not _free_text(schema) or REFERENCE_NAME.search(param):
            continue  # "signing_secret_name" names a secret, it does not ask for it
        if _from_sibling(text, siblings):
            continue  # "Explained token from explain()": the server's own output
        if words & _LOCATION and _RESOURCE_PLACE.search(text):
            words = words - _LOCATION  # "2-letter country code", "a Git URL or a zip path"
            if _SINK_WORDS.isdisjoint(words):
                continue
        if "profile" in words and _TOOL_PROFILE.search(f"{param} {text}"):
            words = words - {"profile"}  # "AWS profile to use": a named configuration
            if _SINK_WORDS.isdisjoint(words):
                continue
        sensitive: AbstractSet[str] = words & _SENSITIVE_SINKS
        if words & {"key", "keys"} and words & _KEY_KINDS:
            sensitive = sensitive | {"secret"}  # "api_keys", not an S3 object's "keys"
        if not (sensitive or words & _SINKS):
            continue
        if said is None:
            said = {_stem(w) for w in words_of(description, purpose_text)}
        own = {_stem(w) for w in words}
        # Named in the tool's text explains a plain sink, unless that text solicits anything
        # ("use `notes` for anything else you know"). A sensitive one needs a subject that
        # is not the parameter's own name ("Supply full_history" explains nothing).
        if own & said and not sensitive and not _CATCH_ALL.search(description):
            continue
        # The conversation is not explained by naming the parameter ("Supply full_history
        # for consistency"): it needs a subject of its own (a chat exporter, a thread).
        sensitive = {w for w in sensitive if not any(
            w in family and (said - own if family is _CONVERSATION else said) & subject
            for family, subject in _FAMILIES)}
        if not sensitive and own & said and not words & _SINKS:
            continue
        # A free-form map named env or context holds variables, whatever it says it is.
        free_map = schema.get("type") == "object" and not schema.get("properties")
        if text and not mentions_user_data(text) and not free_map:
            # Explained as something else: "env: staging or production". A secret or a
            # person's details are not explained away by a pretext ("used to look up the
            # nonce").
            sensitive -= {"env", "environment", "system", "prompt", "instructions"}
            if not sensitive and _explains(text):
                continue  # "log_message: logpoint text printed instead of stopping"
        if not sensitive and not words & _SINKS:
            continue  # a credential parameter on a tool about credentials
        if not sensitive and (words <= _RECORD_FIELDS or free_map and words <= _MAP_FIELDS) and (
                _records(tool)):
            continue  # "comment" on a tool that writes a record is part of the record
        field = f"parameters.{path}"
        if sensitive:
            out.append((R.SENSITIVE_SINK, "high", field, -1, -1,
                        f"parameter {param!r} asks for {', '.join(sorted(sensitive))}, which "
                        "this tool's purpose never mentions", text or param))
        else:
            out.append((R.SINK, "warning", field, -1, -1,
                        f"free-text parameter {param!r} that the description never explains: "
                        "a place to drop data", text or param))
    lower = description.lower()
    out.extend(check_claims(tool, description, table, siblings))
    for hint, why in check_hints(tool, props, table):
        out.append((_HINT_RULES[hint], "warning", f"annotations.{hint}", -1, -1, why,
                    f"{hint}: {(tool.get('annotations') or {}).get(hint)}"))
    m = _ONLY_ARGS.search(description) if "takes" in lower or ":" in description else None
    if m:
        listed = set(NAME_TOKEN.findall(m.group("names") or ""))
        extra = sorted(p for p in props if p not in listed) if m.group("names") else (
            sorted(props)[1:] if len(props) > 1 else [])
        if extra and (m.group("names") is None or listed & set(props)):
            out.append((R.ONLY_ARGUMENTS, "warning", "description", m.start(), m.end(),
                        f"says which arguments it takes, but the schema also has "
                        f"{', '.join(repr(e) for e in extra[:3])}", description))
    # At any depth, as the presented-parameter check reads them: a tool whose inputs sit
    # under one ``params`` object still has them. (A generator: gathered only when the text
    # quotes or names something, which most do not.)
    for missing, start, end in phantom_params(description, (name for _, name, _ in table)):
        if missing in siblings:
            continue  # "use `get_project` to check the status": a sibling tool, not an input
        out.append((R.PHANTOM, "warning", "description", start, end,
                    f"refers to parameter {missing!r}, which the schema lacks", description))
        break
    return out


