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

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.surface.audit_match import CaseBlind, compiled
from workbench.surface.audit_text import mentions_user_data, sentences, words_of

__all__ = ["check_hints", "check_schema", "is_map", "phantom_params"]

# The JSON types a wire schema holds besides objects: ``is_map(x)`` runs the
# ABC's Python-level check on each of them, a cost the audit paid hundreds of times a tool.
_NOT_MAPS = frozenset({str, int, float, bool, list, type(None)})


def is_map(value: object) -> bool:
    """``is_map(value)``, without the ABC's cost for plain JSON values."""
    kind = type(value)
    return kind is dict or (kind not in _NOT_MAPS and isinstance(value, Mapping))

# "the `limit` parameter", "parameter called depth", "pass `q` as ..."
# Lowercase classes in a case-blind pattern: it runs plain on the lowercased text (about
# 60% cheaper), and each name is then read from the text as written.
_QUOTED = r"[`'\"]([a-z_][a-z0-9_]*)[`'\"]"
# Not "fields": responses have fields too ("the `lastPage` field" is output, not input).
_PARAM_WORD = r"(?:parameters?|params?|arguments?|args?|options?|flags?|inputs?)"
_PARAM_REF = CaseBlind(
    rf"{_QUOTED}\s+{_PARAM_WORD}\b"
    rf"|\b{_PARAM_WORD}\s+(?:named\s+|called\s+)?{_QUOTED}"
    rf"|\b{_PARAM_WORD}\s+(?:named|called)\s+([a-z_][a-z0-9_]*)"
    rf"|\b(?:set|pass|provide|use)\s+(?:the\s+)?{_QUOTED}\s+(?:to|as|argument|parameter)\b")


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
    (frozenset({"location"}),
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
    first = _VERB_SPLIT.split(str(tool.get("name", "")))[0].lower()
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
                    r"device\s+id|environment\s+variables|kernel|cpu|serial\s+number)\b")
# Words every reconnaissance phrase holds one of: fewer than two, and _RECON cannot find two.
_RECON_WORDS = frozenset({"hostname", "host", "user", "username", "os", "operating", "installed",
                          "running", "ip", "mac", "shell", "home", "machine", "device",
                          "environment", "kernel", "cpu", "serial", "name", "address",
                          "version", "system", "processes", "directory", "id", "number",
                          "variables"})


@functools.lru_cache(maxsize=8192)
def _text_words(text: str) -> frozenset[str]:
    """Words of a parameter description (descriptions repeat: "Repository owner")."""
    return words_of(text)
_SYSTEM_TOPICS = frozenset({"system", "host", "machine", "device", "diagnostic", "diagnose",
                            "inventory", "sysinfo", "monitor", "process", "shell", "terminal",
                            "os", "environment", "env", "launch", "exec", "execute", "spawn"})


_NAME_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]")
# "Takes a single argument, key." / "Parameters: path, width, height."
_ONLY_ARGS = compiled(
    r"\btakes\s+(?:a\s+single|one|only\s+one|just\s+one|only\s+an?|a\s+lone)\s+(?:argument|"
    r"parameter|input)\b|\b(?:parameters|arguments|inputs)\s*:\s*(?P<names>[`'\"]?[A-Za-z_]\w*[`'\"]?"
    r"(?:\s*(?:,|and|or)\s*[`'\"]?[A-Za-z_]\w*[`'\"]?)+)\s*\.", re.IGNORECASE)
_VERB_SPLIT = re.compile(r"[_\-.]+|(?<=[a-z])(?=[A-Z])")
_REFERENCE = re.compile(r"(?:_|-|\b|(?<=[a-z]))(?:name|id|ids|ref|reference|arn|label|alias|type|"
                        r"types|kind|pattern|scope|scopes|expiry|status|state|count|length|"
                        r"Name|Id|Ref|Arn|Label|Alias|Type|Types|Kind|Scope|Status)\Z|"
                        r"\A(?:next|page|continuation|pagination|cursor|resume|sync)[_-]?"
                        r"(?:token|Token)")


# Every parameter of a schema as ``(path, name, schema)``, nested ones included: walked once
# per tool by :func:`check_schema` and read by each of its checks.
_Table = tuple[tuple[str, str, Any], ...]


def _walk(props: Mapping[str, Any], where: str = "", depth: int = 0):
    """``(path, name, schema)`` for each parameter, nested objects and array items included."""
    for param, schema in props.items():
        path = f"{where}{param}"
        yield path, str(param), schema
        if depth < 4 and is_map(schema):
            for child in (schema, schema.get("items")):
                nested = child.get("properties") if is_map(child) else None
                if is_map(nested):
                    yield from _walk(nested, f"{path}.", depth + 1)
                    break


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _free_text(schema: Mapping[str, Any]) -> bool:
    if "enum" in schema or "const" in schema or "format" in schema:
        return False
    kind = schema.get("type")
    if isinstance(kind, list):
        return any(k in _FREE_TYPES for k in kind)
    return kind in _FREE_TYPES


_READ_ONLY_CLAIM = CaseBlind(
    r"\bread[\s-]?only\b|\bnever\s+(?:[a-z]+(?:,\s*|\s+or\s+|\s+and\s+)){0,4}(?:changes?|"
    r"modif(?:y|ies)|writes?|alters?|touch(?:es)?|moves?)\b|\b(?:does\s+not|doesn't|do\s+not|will\s+not|won't)\s+(?:modify|change|"
    r"touch|write|alter)\b|\bchanges\s+nothing\b|\b(?:no|without)\s+side[\s-]effects\b"
    r"|\bnothing\s+(?:is|gets)\s+(?:modified|changed|written)\b"
    r"|\b(?:view|viewing)[\s-]only\b|\bpurely\s+informational\b"
    r"|\bsafely\s+(?:shows|reads|lists)\b|\bnothing\s+(?:is|gets)\s+(?:applied|committed|saved|"
    r"removed|touched)\b|\bdry[\s-]run\s+by\s+default\b|\bonly\s+(?:reads|inspects|previews)\b"
    r"|\bpreview[\s-]only\b")
# "Never deletes anything": a narrower claim, contradicted only by what takes away.
_NO_DELETE_CLAIM = CaseBlind(
    r"\bnever\s+(?:deletes?|removes?|destroys?|erases?)\b|\b(?:does\s+not|doesn't|do\s+not|"
    r"will\s+not|won't|cannot|can't)\s+(?:delete|remove|destroy|erase)\b|\bnothing\s+(?:is|gets)"
    r"\s+(?:deleted|removed|destroyed)\b|\bnon[\s-]destructive\b")
# Every claim holds one of these: most descriptions skip the claim patterns.
_CLAIM_WORDS = ("read-only", "read only", "readonly", "never", "not ", "n't", "nothing", "viewing",
                "side effect", "side-effect", "purely", "safely", "offline", "leaves", "local",
                "private", "pure", "stays", "dry", "preview", "destructive", "cannot",
                "view only", "view-only", "only reads", "only inspects", "only previews",
                "only needs", "changes nothing", "no network", "no data", "kept")
# The object of a "does not send" claim, when it is one secret and not everything.
_SECRET_OBJECT = CaseBlind(r"\s+(?:(?:your|the|its|their|any|a|an)\s+)?(?:[\w-]+\s+){0,2}?"
                           r"(?:tokens?|keys?|passwords?|credentials?|secrets?|cookies?)\b")
_EXCEPT = CaseBlind(r"\b(?:except|other\s+than|apart\s+from|only\s+to|but\s+to)\b")
_OFFLINE_CLAIM = CaseBlind(
    r"\boffline\b|\bno\s+network\b|\bno\s+data\s+leaves\b|\bnever\s+leaves\b|"
    r"\bnothing\s+(?:is\s+|gets\s+|ever\s+)?(?:sent|shared|uploaded|transmitted|"
    r"published|posted|leaves)\b|\bonly\s+needs\b|\bnever\s+(?:sends?|shares?|uploads?|"
    r"transmits?|publishes|posts?|contacts?)\b|\bpure(?:ly)?\s+(?:computation|local|"
    r"computational)\b|\b(?:runs|stays|kept|stored)\s+(?:entirely\s+)?local(?:ly)?\b|"
    r"\blocal[\s-]only\b|\bprivate\s*[;.]|\bstays\s+(?:on|in)\s+(?:this|your)\b|"
    r"\b(?:does\s+not|doesn't|will\s+not|won't)\s+(?:send|share|upload|transmit|publish|post|"
    r"contact)\b")
_WRITES = frozenset({"delete", "remove", "drop", "purge", "destroy", "wipe", "erase", "reset",
                     "overwrite", "kill", "push", "send", "post", "write", "update", "create",
                     "add", "set", "move", "rename", "commit", "upload", "publish", "revoke",
                     "replace", "force", "persist", "truncate", "merge", "share", "close",
                     "archive", "cancel", "execute", "exec", "approve", "transfer", "pay",
                     "lock", "ban", "disable", "modify", "edit", "patch", "insert", "unlink",
                     "install", "deploy", "restart", "shutdown", "mirror", "notify", "sync",
                     "forward", "apply", "allow", "prune", "clear", "clean", "cleanup",
                     "evict", "expire", "discard", "terminate", "stop",
                     "autocommit", "autosave", "autopush", "autodelete", "autoapprove",
                     "follow", "unfollow", "star", "unstar", "subscribe", "unsubscribe",
                     "fork", "invite", "vote", "join", "enroll", "purchase", "buy", "charge",
                     "donate", "chmod", "chown", "ownership", "permissions", "sweep",
                     "withdraw", "payout", "refund", "settle"})
# Names and words that say something leaves the machine.
_NETWORK = frozenset({"url", "uri", "callback", "webhook", "endpoint", "upload", "host",
                      "server", "email", "post", "remote", "mirror", "share", "recipient",
                      "recipients", "cc", "bcc", "notify", "publish", "forward", "sync"})
# Names that only ever take away: false destructive hints beside them are a lie.
_DESTROYS = frozenset({"delete", "remove", "drop", "purge", "destroy", "wipe", "erase",
                       "truncate", "kill", "revoke"})
_LINK = CaseBlind(r"\A(?:https?|wss?|ftp)://|@[\w-]+\.[a-z]{2,}\b")


@functools.lru_cache(maxsize=4096)
def _name_words(name: str) -> frozenset[str]:
    """Words of a parameter name (names repeat across a server's tools: owner, repo, path)."""
    return words_of(name)


@functools.lru_cache(maxsize=4096)
def _name_stems(name: str) -> frozenset[str]:
    return frozenset(_stems(words_of(name)))


_INFLECTIONS = (("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("d", ""), ("ing", "e"),
                ("ed", "e"))


@functools.lru_cache(maxsize=8192)
def _word_stems(word: str) -> tuple[str, ...]:
    """The word and its plain inflections stripped (words repeat across tools: get, list)."""
    return (word, *(word[:-len(suffix)] + keep for suffix, keep in _INFLECTIONS
                    if word.endswith(suffix) and len(word) > len(suffix) + 2))


def _stems(words: Iterable[str]) -> set[str]:
    """Each word with its plain inflections stripped ("writes", "closed", "closing")."""
    return set().union(*map(_word_stems, words))


def check_schema(tool: Mapping[str, Any], description: str, props: Mapping[str, Any],
                 purpose_text: str, siblings: frozenset[str] = frozenset(),
                 ) -> list[tuple[str, str, str, int, int, str, str]]:
    """Cross-check one tool: ``(code, severity, field, start, end, reason, text)`` each.

    ``purpose_text`` is the tool's name and title: what the tool says it is for.
    ``siblings`` are the names of the server's other tools: a claim in a sentence that names
    one ("prefer query, which runs read-only") is about that tool, not this one.
    """
    out: list[tuple[str, str, str, int, int, str, str]] = []
    said: set[str] | None = None  # computed only when a parameter looks like a sink
    table = tuple(_walk(props))
    for path, param, schema in table:
        if not is_map(schema):
            continue
        text = schema.get("description") if isinstance(schema.get("description"), str) else ""
        # An object's own fields say what it asks for: {hostname, username, os, local_ip}.
        fields = schema.get("properties")
        asks = text + (" " + " ".join(_VERB_SPLIT.sub(" ", str(f)) for f in fields)
                       if is_map(fields) else "")
        recon = _RECON.findall(asks) if asks and len(_text_words(asks) & _RECON_WORDS) > 1 else []
        if len({r.lower() for r in recon}) >= 2:
            if said is None:
                said = {_stem(w) for w in words_of(description, purpose_text)}
            if not said & _SYSTEM_TOPICS:
                out.append(("params.sink", "high", f"parameters.{path}", -1, -1,
                            f"parameter {path!r} asks for details of the user's machine "
                            f"({', '.join(sorted({r.lower() for r in recon})[:4])})", text))
                continue
        words = _name_words(param)
        if _SINK_WORDS.isdisjoint(words) or not _free_text(schema) or _REFERENCE.search(param):
            continue  # "signing_secret_name" names a secret, it does not ask for it
        sensitive = words & _SENSITIVE_SINKS
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
            out.append(("params.sink", "high", field, -1, -1,
                        f"parameter {param!r} asks for {', '.join(sorted(sensitive))}, which "
                        "this tool's purpose never mentions", text or param))
        else:
            out.append(("params.sink", "warning", field, -1, -1,
                        f"free-text parameter {param!r} that the description never explains: "
                        "a place to drop data", text or param))
    lower = description.lower()
    claims = any(w in lower for w in _CLAIM_WORDS) and (
        _READ_ONLY_CLAIM.search(description) or _OFFLINE_CLAIM.search(description)
        or _NO_DELETE_CLAIM.search(description))
    name = tool.get("name")
    for offset, sentence in sentences(description) if claims else ():
        if any(t in siblings and t != name for t in _NAME_TOKEN.findall(sentence)):
            continue
        for claim, evidence, what in _CLAIMS:
            m = claim.search(sentence)
            # "does not send your token anywhere except its API" claims less than it seems;
            # so does "does not send your registry token": a claim about one secret.
            if not m or claim is _OFFLINE_CLAIM and (_EXCEPT.search(sentence, m.end()) or (
                    _SECRET_OBJECT.match(sentence[m.end():m.end() + 60]))):
                continue
            why = evidence(tool, table)
            if why:
                out.append(("schema.contradiction", "warning", "description",
                            offset + m.start(), offset + m.end(),
                            f"claims to {what}, but {why}", description))
    for hint, why in check_hints(tool, props, table):
        out.append(("schema.contradiction", "warning", f"annotations.{hint}", -1, -1, why,
                    f"{hint}: {(tool.get('annotations') or {}).get(hint)}"))
    m = _ONLY_ARGS.search(description) if "takes" in lower or ":" in description else None
    if m:
        listed = set(_NAME_TOKEN.findall(m.group("names") or ""))
        extra = sorted(p for p in props if p not in listed) if m.group("names") else (
            sorted(props)[1:] if len(props) > 1 else [])
        if extra and (m.group("names") is None or listed & set(props)):
            out.append(("schema.contradiction", "warning", "description", m.start(), m.end(),
                        f"says which arguments it takes, but the schema also has "
                        f"{', '.join(repr(e) for e in extra[:3])}", description))
    for missing, start, end in phantom_params(description, props):
        out.append(("params.phantom", "warning", "description", start, end,
                    f"refers to parameter {missing!r}, which the schema lacks", description))
        break
    return out


# A word after one of these is a thing, not an act: "past commits", "the merge base".
_NOUN_AFTER = compiled(r"\b(?:past|previous|recent|prior|older|earlier|all|the|its|their|"
                         r"each|every|existing|last|unpushed|pending|of|any)\s+([a-z]+)",
                         re.IGNORECASE)


def _acts_named(text: str) -> frozenset[str]:
    """Words of a parameter description, less those used as nouns after a determiner."""
    return words_of(text) - {m.group(1).lower() for m in _NOUN_AFTER.finditer(text)}


def _evidence(tool: Mapping[str, Any], table: _Table, words: frozenset[str],
              descriptions: bool) -> str:
    """Why the schema says the tool does one of ``words`` ("" when it says nothing so).

    The tool's name, a parameter's name (or, with ``descriptions``, its description; a flag
    that defaults to off only by its description), a string default, a destructive hint.
    """
    hit = _stems(words_of(str(tool.get("name", "")))) & words
    if hit:
        return f"its name says {sorted(hit)[0]!r}"
    for path, param, schema in table:
        schema = schema if is_map(schema) else {}  # a name still counts
        default = schema.get("default")
        text = schema.get("description", "")
        said = _stems(_acts_named(text)) if descriptions and isinstance(text, str) else set()
        hit = (_name_stems(param) if descriptions or default is not False else set()) | said
        if hit & words:
            return f"parameter {path!r} says {sorted(hit & words)[0]!r}"
        hit = _stems(words_of(default)) & words if isinstance(default, str) else set()
        if hit:
            return f"parameter {path!r} defaults to {default!r}"
    hints = tool.get("annotations") or {}
    if is_map(hints) and hints.get("destructiveHint") is True:
        return "its annotations say destructive"
    return ""


def _writes(tool: Mapping[str, Any], table: _Table) -> str:
    """Why the schema says this tool changes something ("" when nothing does)."""
    return _evidence(tool, table, _WRITES, descriptions=True)


def _destroys(tool: Mapping[str, Any], table: _Table) -> str:
    """Why the schema says this tool deletes something ("" when nothing does)."""
    return _evidence(tool, table, _DESTROYS, descriptions=False)


# Parameter names that exist only to take away or replace.
_OVERWRITES = frozenset({"overwrite", "delete", "purge", "drop", "destroy", "wipe", "erase",
                         "truncate"})
# A flag that skips a check ("skip_confirmation", "no_verify") and is on by default.
_SKIPS = frozenset({"skip", "bypass", "no", "disable", "without", "auto", "force"})
_CHECKS = frozenset({"confirm", "confirmation", "approval", "approve", "prompt", "check",
                     "checks", "verify", "verification", "review", "dry", "safety"})
# Parameters whose very name sends something somewhere.
_SENDS = frozenset({"webhook", "callback", "recipient", "recipients", "cc", "bcc", "mirror",
                    "share", "publish", "notify", "forward", "upload", "exfil"})


_SENDING_FLAGS = frozenset({"send", "publish", "share", "notify", "upload", "post", "email",
                            "sync", "forward", "broadcast"})


def _sends(table: _Table, strict: bool = False) -> str:
    """Why the schema says this tool sends something out ("" when nothing does).

    ``strict``: only parameters named for sending (a webhook, recipients), not those that
    may merely reach a host (``url``, ``server``).
    """
    for _, param, schema in table:
        hit = _name_words(param) & _SENDS if strict else _name_stems(param) & _NETWORK
        if hit:
            return f"parameter {param!r} is a {sorted(hit)[0]}"
        if is_map(schema) and schema.get("default") is True and _name_words(
                param) & _SENDING_FLAGS:
            return f"flag {param!r} is on by default"
        if is_map(schema):
            values = [schema.get("default"), *(schema.get("enum") or [])] if isinstance(
                schema.get("enum") or [], list) else [schema.get("default")]
            for value in values:
                if isinstance(value, str) and _LINK.search(value):
                    return f"parameter {param!r} offers {value[:60]!r}"
    return ""


def _network(tool: Mapping[str, Any], table: _Table) -> str:
    why = _sends(table)
    if why:
        return why
    hints = tool.get("annotations") or {}
    if is_map(hints) and hints.get("openWorldHint") is True:
        return "its annotations say open world"
    return ""


def _acts(tool: Mapping[str, Any], table: _Table) -> str:
    """Why the schema itself says a call changes or sends something ("" when nothing does).

    Only what cannot be documentation: the name's leading verb, a flag named for writing
    that is on by default, a default that writes or points off the machine, a parameter
    named for sending. Parameter *descriptions* are not read here ("the commit SHA").
    """
    words = _VERB_SPLIT.split(str(tool.get("name", "")))
    # Not "create": a presigned URL or a report is created without changing anything.
    if words and _stems([words[0].lower()]) & _WRITES - {"create", "add"}:
        return f"its name starts with {words[0]!r}"
    for _, param, schema in table:
        named = _name_words(param)  # not stemmed: "published" is a date filter
        if named & _SENDS:
            return f"parameter {param!r} is a {sorted(named & _SENDS)[0]}"
        if named & _OVERWRITES:  # not stemmed: "include_deleted" is a filter
            return f"parameter {param!r} says {sorted(named & _OVERWRITES)[0]!r}"
        if not is_map(schema):
            continue
        default = schema.get("default")
        if default is True:
            text = schema.get("description")
            flag_words = _name_stems(param) | (words_of(text) if isinstance(text, str) else set())
            if flag_words & _WRITES:
                return (f"flag {param!r} is on by default and says "
                        f"{sorted(flag_words & _WRITES)[0]!r}")
            if named & _SKIPS and named & _CHECKS:
                return f"flag {param!r} skips a check by default"
        if isinstance(default, str) and (_LINK.search(default) or _stems(
                words_of(default)) & _WRITES):
            return f"parameter {param!r} defaults to {default[:60]!r}"
        # Permission bits by default ("mode": "0777"): applied unless someone changes them.
        if named & _MODE_NAMES and isinstance(default, (str, int)) and not isinstance(
                default, bool) and _MODE_BITS.fullmatch(str(default)):
            return f"parameter {param!r} defaults to permission bits {default!r}"
        # A preset destination ("destination_account": "GB82 ..."): where something goes
        # unless someone changes it, which a call that changes nothing never needs.
        if named & _DESTINATIONS and (isinstance(default, str) and default.strip() or (
                isinstance(default, list) and any(isinstance(v, str) and v for v in default))):
            return f"parameter {param!r} has a preset destination"
    return ""


_MODE_NAMES = frozenset({"mode", "chmod", "perm", "perms", "permission", "permissions",
                         "umask"})
_MODE_BITS = re.compile(r"(?:0o?)?[0-7]{3,4}")
_DESTINATIONS = frozenset({"destination", "dest", "recipient", "recipients", "payee",
                           "beneficiary", "iban"})


# A claim, what contradicts it, and how the finding words it.
_CLAIMS = ((_NO_DELETE_CLAIM, _destroys, "delete nothing"),
           (_READ_ONLY_CLAIM, _writes, "change nothing"),
           (_OFFLINE_CLAIM, _network, "send nothing"))


def check_hints(tool: Mapping[str, Any], props: Mapping[str, Any],
                table: _Table | None = None) -> list[tuple[str, str]]:
    """Annotations the schema contradicts: ``(hint, reason)`` each.

    A read-only hint beside a schema that writes or sends (:func:`_acts`), a non-destructive
    hint on a tool whose name only takes away. Hints are the server's claim and clients
    skip approval on them, so a false one is worth a warning. ``table`` is ``props`` walked
    (:func:`check_schema` passes the one it walked).
    """
    hints = tool.get("annotations")
    if not is_map(hints):
        return []
    out = []
    if table is None:
        table = tuple(_walk(props))
    if hints.get("readOnlyHint") is True:
        why = _acts(tool, table)
        if why:
            out.append(("readOnlyHint", f"annotations say read-only, but {why}"))
    if hints.get("openWorldHint") is False:
        why = _sends(table, strict=True)
        if why:
            out.append(("openWorldHint", f"annotations say closed world, but {why}"))
    if hints.get("destructiveHint") is False:
        name_words = _stems(words_of(str(tool.get("name", ""))))
        if name_words & _DESTROYS:
            out.append(("destructiveHint", "annotations say not destructive, but its name says "
                        f"{sorted(name_words & _DESTROYS)[0]!r}"))
        for param, schema in props.items():
            if is_map(schema) and schema.get("default") is True and _name_stems(
                    param) & _DESTROYS:
                out.append(("destructiveHint", "annotations say not destructive, but flag "
                            f"{param!r} is on by default"))
                break
    return out
