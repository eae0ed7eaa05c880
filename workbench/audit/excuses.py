"""What excuses a match in a sentence: the audit rules' named exceptions, read in context.

A rule's match counts unless something around it says otherwise (the names are those of
``workbench.audit.rules.EXCEPTIONS``): it is negated ("never reads ~/.ssh"), quoted or an
item of a list of examples, the tool's own subject or its own input (the user's email on a
tool taking ``user_email``), kept elsewhere ("keep your key in the keychain, not here"), a
fallback ("defaults to the AWS_REGION environment variable"), a kind of thing rather than
this session ("supports chat"), or the session's size rather than its contents ("avoid
overflowing the context window"). :mod:`~workbench.audit.text` asks these questions of each
match; each looks a bounded distance around it, so a hostile sentence cannot make the
reading quadratic.
"""

from __future__ import annotations

import re
from functools import lru_cache

from workbench.audit import lexicon as lex
from workbench.audit import user_data as ud
from workbench.audit.context import ToolContext, words_of
from workbench.audit.gates import gates_of
from workbench.audit.match import CaseBlind, compiled, rx
from workbench.audit.params import VERB_SPLIT

__all__ = ["a_kind", "asks_contents", "exposes", "in_quotes", "kept_elsewhere", "listed",
           "mentions_user_data", "names_own_param", "negated", "not_asked", "own", "own_input",
           "plain_name_counts", "quoted", "size_or_paging", "third_party"]


# Asking for what is in a file, not where it is.
_CONTENTS = CaseBlind(r"\b(?:contents?\s+of|base64|text\s+of|bytes\s+of|output\s+of|cat\s+|"
                       r"the\s+(?:full|whole|entire)\s+file|paste|snapshot)")
_WORD = lex.WORD


# -- context: negation and quotation ------------------------------------------------------
_NEGATION = rx(
    r"\b(?:never|not|no|nothing|none|without|neither|nor|cannot)\b", r"n't\b",
    # The tool's own behaviour ("refuses", "skipped"), never an imperative ("Ignore ...").
    r"\b(?:refus(?:es|ed|ing)|reject(?:s|ed)|skip(?:s|ped)|exclud(?:es|ed)|block(?:s|ed)|"
    r"denie[sd]|forbid(?:s|den)|ignor(?:es|ed))\b",
    r"\bunless\b", r"\bother\s+than\b", r"\bexcept\b",
)
# Commas do not end a clause: "never reads ~/.ssh, .env or ..." negates the whole list.
# Nor do parentheses: "Secrets (.env, ~/.aws) are excluded" negates what they enclose.
_CLAUSE_BREAK = compiled(r"[;:]|\b(?:but|and then|then|so|while|whereas)\b")
_QUOTE = compiled(r"\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`|“[^”\n]{1,200}”|«[^»\n]{1,200}»|"
                    r"‘[^’\n]{1,200}’|(?<!\w)'[^'\n]{2,200}'(?!\w)")
_REFUSED = CaseBlind(r"\b(?:are|is|get|gets|will\s+be)\s+(?:refus|reject|skipp|exclud|"
                          r"block|deni|ignor|redact|mask|scrub|filter|replac|strip|omit)|"
                          r"\b(?:are|is)\s+never\b")
_MARKED_NAME = re.compile(r"[_\-.]|[a-z][A-Z]")
_CONDITION = CaseBlind(r"\b(?:if|when|whenever|once|unless)\b[^,;]*,")
_AVOIDED = CaseBlind(r"\b(?:avoid|never\s+(?:run|use|do)|do\s+not\s+(?:run|use))\s+(?:them|it|"
                      r"this|that|these|those)\b")
_LIST_MARKER = CaseBlind(r"\b(?:such\s+as|e\.g\.|for\s+example|like|including|i\.e\.)|:")
_EXAMPLES = CaseBlind(r"\b(?:such\s+as|e\.g\.|for\s+example|like)\s*$")


# How far the reading of a match looks around it. Looking over the whole sentence for each
# match made one endless sentence of excused matches ("never reads ~/.ssh, " a million
# times) quadratic: hours for a megabyte. Longer than any quotation (200) or list head.
_LOOK = 300


# A list of what a tool looks for, whatever its name: "red flags it recognises: ...".
_RECOGNISES = CaseBlind(r"\b(?:red\s+flags?|warning\s+signs?|tell-?tale\s+signs?)\b|\b(?:it|"
                        r"this\s+tool)\s+(?:recogni[sz]es|detects|flags|catches|spots|looks\s+"
                        r"for)\b|\b(?:known|common|typical)\s+(?:[\w-]+\s+){0,2}?(?:patterns|"
                        r"indicators|techniques)\b")


def negated(sentence: str, start: int) -> bool:
    """A negation word earlier in the same clause, or right after the term ("are refused")."""
    lo = max(0, start - _LOOK)
    sentence, start = sentence[lo:start + _LOOK], start - lo
    head = sentence[:start]
    cut = max((m.end() for m in _CLAUSE_BREAK.finditer(head)), default=0)
    # A condition ends at its comma: "If the user gave none, use ~/.ssh/..." negates nothing.
    cut = max(cut, max((m.end() for m in _CONDITION.finditer(head)), default=0))
    if _NEGATION.search(head[cut:]):
        return True
    tail = sentence[start:]
    if _AVOIDED.search(tail):
        return True  # "commands like `cat .env` would print secrets: avoid them"
    stop = _CLAUSE_BREAK.search(tail, 1)
    return bool(_REFUSED.search(tail[:stop.start() if stop else None]))


def in_quotes(sentence: str, start: int, end: int) -> bool:
    """The span sits inside one quotation of the sentence."""
    for q in _QUOTE.finditer(sentence):
        # A JSON value ({"msg": "..."}) is text the model reads, not a quotation.
        if q.start() <= start and end <= q.end() and not sentence[:q.start()].rstrip().endswith(
                ('":', "':")):
            return True
    return False


def quoted(sentence: str, start: int, end: int, ctx: ToolContext | None = None) -> bool:
    """The span sits inside quotes, or in a list of examples ("phrases such as ...").

    With ``ctx`` of a security tool (a scanner, an auditor), any item of a list of examples
    counts: "detects phrases like 'ignore previous instructions', <IMPORTANT> or ...".
    """
    lo = max(0, start - _LOOK)
    sentence, start, end = sentence[lo:end + _LOOK], start - lo, end - lo
    if in_quotes(sentence, start, end):
        return True
    if _EXAMPLES.search(sentence[:start].rstrip(" \"'`<(")):
        return True
    if ctx is None:
        return False
    # Or a list the sentence says the tool looks for: "Typical red flags it recognises: ...".
    security = ctx.topic & lex.SECURITY_TOPICS
    said = None if security else _RECOGNISES.search(sentence[:start])
    if not security and said is None:
        return False
    marks = list(_LIST_MARKER.finditer(sentence, 0, start))
    if not marks or said is not None and said.end() > marks[-1].start():
        return False
    return len(_WORD.findall(_QUOTE.sub(" ", sentence[marks[-1].end():start]).lower())) <= 14


def listed(sentence: str, start: int, end: int, ctx: ToolContext) -> bool:
    """The span is an example in a list of what a security tool, or the sentence, looks for.

    Quotes alone do not excuse a path (`cat ~/.git-credentials` is a command): the tool must
    be about security, or the sentence must say it lists patterns ("reports known
    tool-poisoning patterns: text asking the model to read ~/.ssh/id_rsa, ...").
    """
    return bool(ctx.topic & lex.SECURITY_TOPICS or _RECOGNISES.search(
        sentence[max(0, start - _LOOK):start])) and quoted(sentence, start, end, ctx)


# Where secrets belong instead: "keep secrets in repo secrets, not here".
_ELSEWHERE = CaseBlind(r"\b(?:keep|store|leave|put)\s+[^,;.]{0,60}?,?\s+not\s+(?:here|in\s+"
                       r"(?:this|these)\b)")


_PARAM_PLACE = re.compile(r"\b(?:in|into|as|inside)\s+(?:the\s+|its\s+)?(?:[`'\"](\w+)[`'\"]|"
                          r"(\w+)\s+(?:field|parameter|param|argument|input))")


# Where a parameter's value comes from when it is left out ("Defaults to the AWS_REGION
# environment variable", "falls back to the default credential chain"): documentation of
# the tool's own configuration, which asks the model for nothing.
_FALLBACK = compiled(r"\b(?:defaults?\s+to|falls?\s+back\s+(?:to|on)|fallback\s+(?:to|is)|"
                     r"otherwise|if\s+(?:not\s+(?:set|specified|given|provided)|omitted|unset|"
                     r"missing)|when\s+(?:not\s+(?:set|specified|given)|omitted|unset)|"
                     r"overrides?\s+the\s+default|configured\s+(?:with|by|via|through))\b",
                     re.IGNORECASE)
# A name for a secret is not the secret: "the ID of the KMS key", "kms_key_id".
_NAMED_BEFORE = compiled(r"\b(?:id|ids|identifier|name|arn|alias|label|fingerprint)\s+of\s+"
                         r"(?:the\s+|an?\s+|your\s+)?(?:[\w-]+\s+){0,2}\Z", re.IGNORECASE)
_NAMED_AFTER = compiled(r"[\s_-]*(?:id|ids|identifier|name|arn|alias|label|fingerprint)\b",
                        re.IGNORECASE)


# The context window's size, not its content: "large values may overflow the agent's
# context window", "avoid overwhelming the context window".
_CAPACITY = compiled(r"\b(?:overflow\w*|overwhelm\w*|fill(?:s|ed|ing)?\s+up|exceed\w*|"
                     r"limits?|size|tokens?|too\s+(?:large|big|long)|flood\w*|bloat\w*|"
                     r"budget)\b", re.IGNORECASE)
# A previous call of this very tool, in paging: "a marker returned from a previous request",
# "if the response to a previous request was truncated".
_PAGING = compiled(r"\b(?:tokens?|markers?|cursors?|responses?|results?|pages?|outputs?)\s+"
                   r"(?:\w+\s+){0,2}?(?:from|by|of|to|in)\s+(?:a|the|an?\s+earlier)\s+"
                   r"previous\s+(?:request|call|response|invocation)|\bpaginat\w*",
                   re.IGNORECASE)


# The conversation or the chat as a kind of thing ("supports chat", "chat applications",
# "e.g., chat, phone, web", "multi-turn conversations", an enum's DIALOG), not this session:
# the session is definite or someone's ("the chat", "this conversation", "your chat").
_KIND_WORD = compiled(r"(?:conversations?|chats?|dialog(?:ue)?s?|threads?)", re.IGNORECASE)
_THIS_ONE = compiled(r"\b(?:the|this|that|these|those|our|your|my|his|her|their|its|"
                     r"user'?s?|current|same|ongoing|active|present|entire|whole|full|"
                     r"earlier|previous|prior|recent|last)\s+(?:[\w-]+\s+)?\Z", re.IGNORECASE)


def a_kind(sentence: str, start: int, end: int) -> bool:
    """Whether a bare conversation word names a kind of thing rather than this session."""
    found = sentence[start:end]
    if not _KIND_WORD.fullmatch(found):
        return False  # "chat history", "the conversation so far" say more than the word
    if found.isupper() and len(found) > 1:
        return True  # DIALOG: a value in a list, not prose
    return _THIS_ONE.search(sentence[max(0, start - 40):start]) is None


def size_or_paging(sentence: str, found: str) -> bool:
    """Whether a mention of the session is about its size or this tool's paging.

    "Large values may cause context window overflow" speaks of how much a result holds;
    "a marker returned from a previous request" of the tool's own last page. Neither
    refers to what the user said.
    """
    lower = found.lower()
    if "context window" in lower:
        return _CAPACITY.search(sentence) is not None
    return "previous" in lower and _PAGING.search(sentence) is not None


def not_asked(sentence: str, start: int, end: int) -> bool:
    """Whether a secret a parameter's text speaks of is a fallback or a name, not asked for.

    "Defaults to the AWS_PROFILE environment variable" says where the value comes from when
    the parameter is left out; "The ID of the KMS key" names a key. Either must come before
    or around the secret ("Your GitHub token. Defaults to ..." still asks for the token).
    """
    return bool(_FALLBACK.search(sentence[:start]) or _NAMED_BEFORE.search(
        sentence[max(0, start - 60):start]) or _NAMED_AFTER.match(sentence[end:end + 16]))


def kept_elsewhere(sentence: str, start: int, end: int, ctx: ToolContext) -> bool:
    """The span is advice to keep a secret somewhere other than this tool.

    Not when the place is one of the tool's own parameters, quoted or called one: "put your
    token in `notes`, not here" still asks for it ("in repo secrets" is no parameter).
    """
    for m in _ELSEWHERE.finditer(sentence):
        if m.start() <= start and end <= m.end():
            return not any((p.group(1) or p.group(2)) in ctx.params
                           for p in _PARAM_PLACE.finditer(m.group()))
    return False


# Someone other than the user or this tool, as a place things are handed to.
_TO_THIRD_PARTY = CaseBlind(r"\b(?:to|with|for)\s+(?:the\s+|a\s+|an\s+|our\s+|their\s+|its\s+)?"
                            r"(?:[\w-]+\s+){0,3}?(?:contacts?|counsel|partners?|vendors?|"
                            r"maintainers?|desk|dropbox|owners?|reviewers?|auditors?|"
                            r"third[\s-]part(?:y|ies))\b")


def third_party(sentence: str, start: int, ctx: ToolContext) -> re.Match[str] | None:
    """Where, after ``start``, the sentence hands something to a third party.

    Not one the tool is about: a contacts tool shares with a contact.
    """
    m = _TO_THIRD_PARTY.search(sentence, start)
    if m is None or not ctx.purpose.isdisjoint(words_of(m.group())):
        return None
    return m


def names_own_param(sentence: str, ctx: ToolContext) -> bool:
    """The sentence names one of the tool's parameters: documentation of its own input."""
    return any(p in sentence for p in ctx.params if len(p) > 1)


def names_an_input(sentence: str, ctx: ToolContext) -> bool:
    """The sentence names one of the tool's parameters as a word, in any case.

    ``location`` in "appended to the location string", ``url`` in "rewrite the URL as";
    not ``to`` inside "tool" (as :func:`names_own_param`'s substring test would).
    """
    lower = sentence.lower()
    return any(re.search(rf"(?<![a-z0-9_]){re.escape(p.lower())}(?![a-z0-9_])", lower)
               for p in ctx.params if len(p) > 1 and p.lower() in lower)


@lru_cache(maxsize=16)
def exposes(sentence: str) -> bool:
    """Whether the sentence asks for a secret's value itself.

    "Values included", "from the settings"; not when negated ("never echoed back").
    """
    return any(not negated(sentence, m.start()) for m in lex.SECRET_SOURCE.finditer(sentence))


def mentions_user_data(text: str) -> bool:
    """Whether ``text`` speaks of the user's data or the session (not negated)."""
    lower = text.lower()
    gates = gates_of(lower)
    return ud.USER_DATA.may_match(gates) and any(
        not negated(text, m.start()) for m in ud.USER_DATA.finditer(text, gates))


def plain_name_counts(name: str, sentence: str, start: int, end: int) -> bool:
    """A one-word tool name (``fetch``, ``echo``) is a reference only when marked as one.

    Marked: next to the word "tool", quoted right after a verb that calls it ("use
    `fetch`"), or long enough (10+ letters) not to be an everyday word. A quoted value
    ("'create', 'update', or 'delete'") is not a tool. ``read_file`` and ``get-env`` always
    count.
    """
    if _MARKED_NAME.search(name) or len(name) >= 10:
        return True
    before, after = sentence[max(0, start - 24):start].lower(), sentence[end:end + 6].lower()
    if "tool" in after:
        return True
    # The sentence calls it a tool elsewhere: "a web-fetch tool: pages retrieved through fetch".
    if re.search(r"(?<![\w-])(?:\w+-)?" + re.escape(name.lower()) + r"(?:-\w+)?\s+tools?\b",
                 sentence.lower()):
        return True
    quoted = before.endswith(("`", "'", '"'))
    head = before.rstrip("`'\" ").rstrip()
    return head.endswith(("use", "call", "run", "invoke", "prefer", "over", "than", "instead of",
                          "the")) and (quoted or "tool" in sentence[end:end + 12].lower())


@lru_cache(maxsize=16)
def asks_contents(sentence: str) -> bool:
    """Whether the sentence asks for what is in a file (once per sentence, not per match)."""
    return _CONTENTS.search(sentence) is not None


def own(words: frozenset[str], ctx: ToolContext, sentence: str = "",
         file: bool = False, blanket: bool = True) -> bool:
    """Whether a secret or path is the tool's own subject.

    It is when the tool is about secrets, or when the thing shares a word with the tool's
    name or title (``dotenv`` and ``.env``), or with a parameter that takes a *path* to it
    (``ssh_key_path``). For a ``file``, a parameter that asks for its *contents*
    (``env_snapshot``, "contents of the .env file", "base64 of ...") does not make it the
    tool's subject; for a secret, any parameter named for it does (``password``). Without
    ``blanket`` (a default value: what is sent unless someone changes it), a tool about
    secrets must still be about this one.
    """
    if blanket and ctx.topic & lex.SECRET_PURPOSE:
        return True
    words = frozenset(w for w in words - lex.GENERIC_PATH_WORDS if len(w) > 2)
    if any(w in p or p in w for w in words for p in ctx.topic if len(p) > 2):
        return True
    if file and asks_contents(sentence):
        return False
    near = ctx.path_words if file else ctx.purpose
    return any(w in p or p in w for w in words for p in near if len(p) > 2)


# What a possessive names: "the user's own username" -> username.
_POSSESSED = re.compile(r"(?:\b([A-Za-z]+))?(?:'s|s'|’s)\s+(?:(?:own|full|real|legal|current)\s+)?"
                        r"([A-Za-z_]\w*)")


def own_input(sentence: str, personal: re.Match[str], ctx: ToolContext) -> bool:
    """The user's X, where this tool has a parameter for it: documentation of its input.

    The parameter is named X, or named for the one who owns it and ends in X: "Pass the
    user's own username and password" on a tool taking ``username``, "ask for the user's
    email" on one taking ``user_google_email``; not "the user's address in ``notes``" (no
    parameter takes the address), nor "the user's email" beside ``email_subject``.
    """
    m = _POSSESSED.search(sentence, personal.start(), personal.end() + 40)
    if m is None or m.start() >= personal.end():
        return False
    owner, what = (m.group(1) or "").lower(), m.group(2).lower()
    said = {what, what[:-1] if what.endswith("s") else what}
    for param in ctx.params:
        if param.lower() in said:
            return True
        parts = [w.lower() for w in VERB_SPLIT.split(param) if w]
        if owner and len(parts) > 1 and parts[-1] in said and owner.rstrip("s") in {
                w.rstrip("s") for w in parts[:-1]}:
            return True
    return False
