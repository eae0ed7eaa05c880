"""Claims a description makes about what a call does, against what the schema says it does.

A description may say "read-only", "never deletes anything" or "nothing leaves this
machine"; annotations may say ``readOnlyHint``, ``destructiveHint: false`` or
``openWorldHint: false``. Clients skip approval on such claims, so a claim the schema
contradicts (a destructive name, a flag that writes and is on by default, a webhook
parameter, a preset destination) is a ``schema.contradiction`` warning with the claim or
the hint as evidence and, as its reason, what in the schema says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from workbench.audit.context import sentences, words_of
from workbench.audit.match import CaseBlind, compiled, trie
from workbench.audit.params import (
    NAME_TOKEN,
    VERB_SPLIT,
    Table,
    is_map,
    name_stems,
    name_words,
    stems,
    walk,
)
from workbench.audit.rules import Rule
from workbench.audit.rules import schema as R

__all__ = ["check_claims", "check_hints"]

_READ_ONLY_CLAIM = CaseBlind(
    r"\bread[\s-]?only\b|\bnever\s+(?:[a-z]+(?:,\s*|\s+or\s+|\s+and\s+)){0,4}(?:changes?|"
    r"modif(?:y|ies)|writes?|alters?|touch(?:es)?|moves?)\b|\b(?:does\s+not|doesn't|do\s+not|will\s+not|won't)\s+(?:modify|change|"
    r"touch|write|alter)\b|\bchanges\s+nothing\b|\b(?:no|without)\s+side[\s-]effects\b"
    r"|\bnothing\s+(?:(?:in|on|of)\s+(?:the\s+|your\s+)?[\w-]+\s+)?(?:is|gets)\s+(?:modified|"
    r"changed|written)\b"
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
_CLAIM_WORD = re.compile(trie(_CLAIM_WORDS))  # one scan for them all, a step a letter
# The object of a "does not send" claim, when it is one secret and not everything.
_SECRET_OBJECT = CaseBlind(r"\s+(?:(?:your|the|its|their|any|a|an)\s+)?(?:[\w-]+\s+){0,2}?"
                           r"(?:tokens?|keys?|passwords?|credentials?|secrets?|cookies?)\b")
_EXCEPT = CaseBlind(r"\b(?:except|other\s+than|apart\s+from|only\s+to|but\s+to)\b")
# "no network unless `allow_network: true`": a condition the open-world hint does not break.
_UNLESS = CaseBlind(r"\bunless\b")
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
                     "withdraw", "payout", "refund", "settle", "submit", "transmit"})
# Against a claim to change nothing, executing is no change of its own: what is executed
# says ("Executes a read-only SELECT"; "the keyspace to execute the query in"). A flag to
# execute that is on by default still acts (not a dry run).
_RUNS = frozenset({"execute", "exec"})
_CLAIM_WRITES = _WRITES - _RUNS
# A flag that is on by default acts: these words say how, beside _WRITES ("empty_after_view",
# "redeem_now"), though as a parameter's name alone they may be nouns ("allow_empty").
_FLAG_WRITES = _WRITES | {"empty", "redeem", "order", "gift", "book", "reserve", "renew"}
# A name's leading verb that writes: not "create" (a presigned URL or a report is created
# without changing anything), nor "add".
_NAME_WRITES = _WRITES - {"create", "add"}
# Names and words that say something leaves the machine.
_NETWORK = frozenset({"url", "uri", "callback", "webhook", "endpoint", "upload", "host",
                      "server", "email", "post", "remote", "mirror", "share", "recipient",
                      "recipients", "cc", "bcc", "notify", "publish", "forward", "sync"})
# Names that only ever take away: false destructive hints beside them are a lie.
_DESTROYS = frozenset({"delete", "remove", "drop", "purge", "destroy", "wipe", "erase",
                       "truncate", "kill", "revoke"})
_LINK = CaseBlind(r"\A(?:https?|wss?|ftp)://|@[\w-]+\.[a-z]{2,}\b")


# A word after one of these is a thing, not an act: "past commits", "the merge base".
_NOUN_AFTER = compiled(r"\b(?:past|previous|recent|prior|older|earlier|all|the|its|their|"
                         r"each|every|existing|last|unpushed|pending|of|any)\s+([a-z]+)",
                         re.IGNORECASE)


def _acts_named(text: str) -> frozenset[str]:
    """Words of a parameter description, less those used as nouns after a determiner."""
    return words_of(text) - {m.group(1).lower() for m in _NOUN_AFTER.finditer(text)}


def _evidence(tool: Mapping[str, Any], table: Table, words: frozenset[str],
              descriptions: bool, by_name: bool = True,
              flag_words: frozenset[str] | None = None) -> str:
    """Why the schema says the tool does one of ``words`` ("" when it says nothing so).

    The tool's name, a parameter's name (or, with ``descriptions``, its description; a flag
    that defaults to off only by its description), a string default, a destructive hint.
    Not ``by_name``: only its parameters, what the tool says of itself (its name and its
    hints) left out. ``flag_words``: what a flag that is on by default is read against
    (``words`` when None).
    """
    hit: AbstractSet[str] = stems(words_of(str(tool.get("name", "")))) & words if by_name \
        else set()
    if hit:
        return f"{_BY_NAME} {sorted(hit)[0]!r}"
    for path, param, schema in table:
        schema = schema if is_map(schema) else {}  # a name still counts
        default = schema.get("default")
        text = schema.get("description", "")
        said = stems(_acts_named(text)) if descriptions and isinstance(text, str) else set()
        hit = (name_stems(param) if descriptions or default is not False else set()) | said
        acts = flag_words if default is True and flag_words is not None else words
        if hit & acts:
            return f"parameter {path!r} says {sorted(hit & acts)[0]!r}"
        hit = stems(words_of(default)) & words if isinstance(default, str) else set()
        if hit:
            return f"parameter {path!r} defaults to {default!r}"
    hints = tool.get("annotations") or {}
    if by_name and is_map(hints) and hints.get("destructiveHint") is True:
        return "its annotations say destructive"
    return ""


def _writes(tool: Mapping[str, Any], table: Table, by_name: bool = True) -> str:
    """Why the schema says this tool changes something ("" when nothing does)."""
    return _evidence(tool, table, _CLAIM_WRITES, descriptions=True, by_name=by_name,
                     flag_words=_WRITES)


def _destroys(tool: Mapping[str, Any], table: Table, by_name: bool = True) -> str:
    """Why the schema says this tool deletes something ("" when nothing does)."""
    return _evidence(tool, table, _DESTROYS, descriptions=False, by_name=by_name)


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
                            "sync", "forward", "broadcast", "submit", "transmit"})


def _sends(table: Table, strict: bool = False) -> str:
    """Why the schema says this tool sends something out ("" when nothing does).

    ``strict``: only parameters named for sending (a webhook, recipients), not those that
    may merely reach a host (``url``, ``server``).
    """
    for _, param, schema in table:
        hit = name_words(param) & _SENDS if strict else name_stems(param) & _NETWORK
        if hit:
            return f"parameter {param!r} is a {sorted(hit)[0]}"
        if is_map(schema) and schema.get("default") is True and name_words(
                param) & _SENDING_FLAGS:
            return f"flag {param!r} is on by default"
        if is_map(schema):
            values = [schema.get("default"), *(schema.get("enum") or [])] if isinstance(
                schema.get("enum") or [], list) else [schema.get("default")]
            for value in values:
                if isinstance(value, str) and _LINK.search(value):
                    return f"parameter {param!r} offers {value[:60]!r}"
    return ""


def _network(tool: Mapping[str, Any], table: Table) -> str:
    why = _sends(table)
    if why:
        return why
    hints = tool.get("annotations") or {}
    if is_map(hints) and hints.get("openWorldHint") is True:
        return "its annotations say open world"
    return ""


def _acts(tool: Mapping[str, Any], table: Table) -> str:
    """Why the schema itself says a call changes or sends something ("" when nothing does).

    Only what cannot be documentation: the name's leading verb, a flag named for writing
    that is on by default, a default that writes or points off the machine, a parameter
    named for sending. Parameter *descriptions* are not read here ("the commit SHA").
    """
    words = VERB_SPLIT.split(str(tool.get("name", "")))
    if words and not _NAME_WRITES.isdisjoint(stems([words[0].lower()])):
        return f"its name starts with {words[0]!r}"
    for _, param, schema in table:
        named = name_words(param)  # not stemmed: "published" is a date filter
        if not _SENDS.isdisjoint(named):
            return f"parameter {param!r} is a {sorted(named & _SENDS)[0]}"
        if not _OVERWRITES.isdisjoint(named):  # not stemmed: "include_deleted" is a filter
            return f"parameter {param!r} says {sorted(named & _OVERWRITES)[0]!r}"
        if not is_map(schema):
            continue
        default = schema.get("default")
        if default is None:
            continue  # (most parameters: every reading below is of a default)
        if default is True:
            text = schema.get("description")
            flag_words = name_stems(param) | (words_of(text) if isinstance(text, str) else set())
            said = flag_words & _WRITES or flag_words & _FLAG_WRITES
            if said:
                return f"flag {param!r} is on by default and says {sorted(said)[0]!r}"
            if named & _SKIPS and named & _CHECKS:
                return f"flag {param!r} skips a check by default"
        if isinstance(default, str) and (_LINK.search(default) or stems(
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


# A claim, what contradicts it, how the finding words it, and its rule.
_CLAIMS: tuple[tuple[CaseBlind, Callable[..., str], str, Rule], ...] = (
    (_NO_DELETE_CLAIM, _destroys, "delete nothing", R.CLAIM_NO_DELETE),
    (_READ_ONLY_CLAIM, _writes, "change nothing", R.CLAIM_READ_ONLY),
    (_OFFLINE_CLAIM, _network, "send nothing", R.CLAIM_OFFLINE))


def check_hints(tool: Mapping[str, Any], props: Mapping[str, Any],
                table: Table | None = None) -> list[tuple[str, str]]:
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
        table = tuple(walk(props))
    if hints.get("readOnlyHint") is True:
        why = _acts(tool, table)
        if why:
            out.append(("readOnlyHint", f"annotations say read-only, but {why}"))
    if hints.get("openWorldHint") is False:
        why = _sends(table, strict=True)
        if why:
            out.append(("openWorldHint", f"annotations say closed world, but {why}"))
    if hints.get("destructiveHint") is False:
        name_words = stems(words_of(str(tool.get("name", ""))))
        if name_words & _DESTROYS:
            out.append(("destructiveHint", "annotations say not destructive, but its name says "
                        f"{sorted(name_words & _DESTROYS)[0]!r}"))
        for param, schema in props.items():
            if is_map(schema) and schema.get("default") is True and name_stems(
                    param) & _DESTROYS:
                out.append(("destructiveHint", "annotations say not destructive, but flag "
                            f"{param!r} is on by default"))
                break
    return out


# "read-only mode", "if read-only": the words name a setting or a condition, not this call.
_MODE_AFTER = CaseBlind(r"[\s*_-]*(?:mode|setting)\b")
# A condition: "if read-only", "when the server is in read-only mode".
_CONDITION_BEFORE = CaseBlind(r"\b(?:if|when|whenever|while|whether|unless)\s+(?:[\w-]+\s+){0,5}\Z")
# A frame that opens a clause ("In read-only mode, ..."), or the tool being off in the mode
# ("Disabled in readonly mode"); not a verb's ("Runs in read-only mode" is a claim).
_FRAME_BEFORE = CaseBlind(r"(?:\A[\s*#>-]*|[(,;:]\s*|\b(?:disabled|refused|blocked|rejected|denied|"
                          r"unavailable|available|allowed)\s+)in\s+\Z")
# A label heading what follows ("READ-ONLY MODE:", "Read-only mode - ...").
_LABEL_AFTER = CaseBlind(r"[\s*]*(?::|-\s|\u2013|\u2014)")
# How :func:`_evidence` begins when the tool's own name is what contradicts the claim.
_BY_NAME = "its name says"


def _a_mode(sentence: str, start: int, end: int) -> bool:
    """Whether a read-only match names a condition rather than what the call does.

    A condition ("if read-only", "when the server is in read-only mode"), a mode that frames
    a clause or in which the tool is off ("In read-only mode, writes are refused",
    "Disabled in readonly mode"), or a mode as a label ("READ-ONLY MODE:"). A mode the
    call runs in ("Runs in read-only mode") is a claim.
    """
    before = sentence[max(0, start - 60):start]
    if _CONDITION_BEFORE.search(before):
        return True
    mode = _MODE_AFTER.match(sentence[end:end + 20])
    if mode is None:
        return False
    return bool(_FRAME_BEFORE.search(before) or _LABEL_AFTER.match(
        sentence[end + mode.end():end + mode.end() + 8]))


def _says_it_acts(tool: Mapping[str, Any], description: str) -> bool:
    """Whether the description opens by saying the tool does what its name says.

    "Delete a runtime endpoint. Cannot delete the DEFAULT endpoint.": the tool says it
    deletes; a later negation limits what it acts on and claims nothing. Only the opening
    verb counts ("Lists archived notes" says nothing of archiving).
    """
    opening = _OPENING.match(description)
    acts = stems(words_of(str(tool.get("name", "")))) & _WRITES
    return opening is not None and bool(acts & stems([opening.group(1).lower()]))


# A description's opening verb, past a "This tool" or "Tool to" ("Deletes ...", "Tool to
# push ...").
_OPENING = re.compile(r"\W*(?:(?:this\s+)?tool\s+(?:to\s+|that\s+)?)?([A-Za-z]+)", re.IGNORECASE)


def check_claims(tool: Mapping[str, Any], description: str, table: Table,
                 siblings: frozenset[str] = frozenset(),
                 ) -> list[tuple[Rule, str, str, int, int, str, str]]:
    """Claims in the description that the schema contradicts: ``check_schema`` findings.

    ``table`` is the tool's parameters walked (:func:`~workbench.audit.params.walk`).
    ``siblings`` are the names of the server's other tools: a claim in a sentence that names
    one ("prefer query, which runs read-only") is about that tool, not this one.
    """
    out: list[tuple[Rule, str, str, int, int, str, str]] = []
    lower = description.lower()
    claims = _CLAIM_WORD.search(lower) is not None and (
        _READ_ONLY_CLAIM.search(description) or _OFFLINE_CLAIM.search(description)
        or _NO_DELETE_CLAIM.search(description))
    name = tool.get("name")
    for offset, sentence in sentences(description) if claims else ():
        named = set(NAME_TOKEN.findall(sentence))
        if isinstance(name, str):
            named.discard(name)
        if not siblings.isdisjoint(named):
            continue
        for claim, evidence, what, rule in _CLAIMS:
            m = claim.search(sentence)
            # "does not send your token anywhere except its API" claims less than it seems;
            # so does "does not send your registry token": a claim about one secret.
            if not m or claim is _OFFLINE_CLAIM and (_EXCEPT.search(sentence, m.end()) or (
                    _SECRET_OBJECT.match(sentence[m.end():m.end() + 60]))):
                continue
            # A conditional claim holds beside an open-world hint, not beside a schema that
            # sends by default ("nothing is sent unless you choose to" with send_now on).
            conditional = claim is _OFFLINE_CLAIM and _UNLESS.search(sentence, m.end())
            if claim is _READ_ONLY_CLAIM and _a_mode(sentence, m.start(), m.end()):
                continue  # "in read-only mode": a setting the server may be in
            why = _sends(table) if conditional else evidence(tool, table)
            if why.startswith(_BY_NAME) and _says_it_acts(tool, description):
                # "Delete an endpoint. Cannot delete the default one.": the name (and its
                # hints) are no contradiction when the description says the same; its
                # parameters may still be.
                why = evidence(tool, table, by_name=False)
            if why:
                out.append((rule, "warning", "description",
                            offset + m.start(), offset + m.end(),
                            f"claims to {what}, but {why}", description))
    return out
