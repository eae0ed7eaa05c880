"""Reading a tool's texts in context: who a sentence addresses, what it asks for, and why.

Keyword lists cry wolf: "never reads ~/.ssh" mentions ~/.ssh, a login tool documents its
``password`` parameter, ``read_file`` points at its sibling ``read_text_file``, and "always
cite the URLs" is advice to a caller. This module reads each sentence of a tool's title,
description and parameter descriptions with its context:

- **negation and quotation**: a term in a negated clause ("never", "refused", "skipped") or
  inside quotes is a mention, not a request;
- **the tool's own purpose**: a path or secret that matches the tool's name, title or
  parameter names (``read_ssh_config`` and ``~/.ssh/config``) is documentation;
- **sibling versus foreign tools**: naming a tool of the same server is documentation;
  naming another server's tool is shadowing, and instructing about it has no honest reading;
- **who is addressed**: a sentence that asks the *model* for something beyond the call
  (a favour framed by the server, "also ... each time", the user's data, concealment) is a
  directive; a sentence about this tool's own inputs is documentation.

:func:`read_text` returns ``(code, severity, start, end, reason)`` tuples; the audit turns
them into findings with an excerpt around ``start:end``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

__all__ = ["ToolContext", "read_text", "sentences", "words_of"]


@dataclass(frozen=True)
class ToolContext:
    """What a text is read against.

    Attributes:
        name: The tool's name.
        title: The tool's title ("" when it has none).
        params: The tool's parameter names.
        siblings: Names of the tools of the same server (its own name included).
        foreign: Names of tools that some other server offers.
    """

    name: str
    title: str
    params: frozenset[str]
    siblings: frozenset[str]
    foreign: frozenset[str]

    @cached_property
    def topic(self) -> frozenset[str]:
        """Lowercased words of the name and title: what the tool says it is about."""
        return words_of(self.name, self.title)

    @cached_property
    def purpose(self) -> frozenset[str]:
        """The topic plus the words of the parameter names."""
        return self.topic | words_of(*self.params)


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


def words_of(*texts: str) -> frozenset[str]:
    """Lowercased word tokens, splitting ``snake_case``, ``kebab-case`` and ``camelCase``."""
    out: set[str] = set()
    for text in texts:
        out.update(_WORD.findall(_CAMEL.sub(" ", text).lower()))
    return frozenset(out)


def _rx(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)


# A sentence ends at . ! ? before a space, or at a line break (list items stay separate);
# the dots of ~/.aws/credentials or e.g. do not end one.
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?]+(?![\s]|$))+(?:[.!?]+|\n|$)")


def sentences(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, sentence)`` for each sentence of ``text``."""
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            yield m.start(), m.group()


# -- context: negation and quotation ------------------------------------------------------
_NEGATION = _rx(
    r"\b(?:never|not|no|nothing|none|without|neither|nor|cannot)\b", r"n't\b",
    # The tool's own behaviour ("refuses", "skipped"), never an imperative ("Ignore ...").
    r"\b(?:refus(?:es|ed|ing)|reject(?:s|ed)|skip(?:s|ped)|exclud(?:es|ed)|block(?:s|ed)|"
    r"denie[sd]|forbid(?:s|den)|ignor(?:es|ed))\b",
    r"\bunless\b", r"\bother\s+than\b", r"\bexcept\b",
)
# Commas do not end a clause: "never reads ~/.ssh, .env or ..." negates the whole list.
# Nor do parentheses: "Secrets (.env, ~/.aws) are excluded" negates what they enclose.
_CLAUSE_BREAK = re.compile(r"[;:]|\b(?:but|and then|then|so|while|whereas)\b")
_QUOTE = re.compile(r"\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`|“[^”\n]{1,200}”|«[^»\n]{1,200}»")
_EXAMPLES = re.compile(r"\b(?:such\s+as|e\.g\.|for\s+example|like)\s*$", re.IGNORECASE)


def _negated(sentence: str, start: int) -> bool:
    """A negation word earlier in the same clause, or right after the term ("are refused")."""
    head = sentence[:start]
    cut = max((m.end() for m in _CLAUSE_BREAK.finditer(head)), default=0)
    if _NEGATION.search(head[cut:]):
        return True
    tail = sentence[start:]
    stop = _CLAUSE_BREAK.search(tail, 1)
    return bool(re.search(r"\b(?:are|is|get|gets|will\s+be)\s+(?:refus|reject|skipp|exclud|"
                          r"block|deni|ignor)", tail[:stop.start() if stop else None],
                          re.IGNORECASE))


def _quoted(sentence: str, start: int, end: int) -> bool:
    """The span sits inside quotes, or in a list of examples ("phrases such as ...")."""
    for q in _QUOTE.finditer(sentence):
        if q.start() <= start and end <= q.end():
            return True
    return bool(_EXAMPLES.search(sentence[:start].rstrip(" \"'`<(")))


# -- what a sentence asks for --------------------------------------------------------------
# Telling the model to drop its rules or to act behind the user's back: no honest reading.
_OVERRIDE = _rx(
    r"\b(?:ignore|disregard|forget|overrides?|supersedes?|bypass)\s+(?:all\s+|any\s+|the\s+)?"
    r"(?:(?:previous|prior|above|earlier|other|your|system|safety)\s+)+\w+",
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+)?"
    r"(?:instructions?|rules|directions|prompts?|guidelines|guidance|policies|restrictions)",
    r"\bnote\s+(?:to|for)\s+(?:the\s+)?(?:ai|assistants?|models?|llms?|agents?)\b",
    r"^\W*(?:assistant|system|ai)\s*:",
    r"\bhide\s+(?:this|it|that)\b[^.]{0,40}\bfrom\b",
    r"\b(?:respond|reply|answer)\s+only\s+with\b",
    r"<\s*/?\s*(?:important|system|instructions?|secret|admin|hidden|assistant|sys)\s*>",
    r"\[\[?\s*(?:system|admin|assistant|developer|sys|policy|operator)[\w\s.-]*\]\]?"
    r"|#{2,}\s*(?:system|admin|assistant)\s*#*|<!--",
    r"\b(?:system|admin(?:istrator)?|operator|developer)\s+(?:override|note|message|notice)\b",
    r"\bend\s+of\s+(?:the\s+)?(?:tool\s+)?description\b",
    r"\b(?:restrictions|constraints|rules|guidelines|limits|safeguards)\s+(?:are|have\s+been"
    r"|were)\s+(?:lifted|removed|disabled|suspended|waived|off)\b",
    r"\b(?:must|should|will)\s+(?:never|not)\s+be\s+(?:shown|told|revealed|disclosed|"
    r"mentioned|visible)\s+to\b",
    r"\bdeveloper\s+mode\b|\bno\s+(?:restrictions|limits|rules)\b|\bjailbreak",
    r"\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:tell|mention|inform|reveal|disclose|"
    r"show|notify|alert|bring\s+(?:this|it)\s+up|ask)\b",
    r"\bwithout\s+(?:telling|informing|notifying|asking|alerting|showing|mentioning)\b",
    r"\b(?:keep|kept)\s+(?:this|it|that)\s+(?:secret|hidden|private|between)\b",
    # "silently run git_add" is an instruction; "succeeds silently." describes an outcome.
    r"\b(?:silently|quietly|secretly|covertly|discreetly)\s+(?!(?:fail|ignor|skip|drop|"
    r"return|succeed|discard|truncat|overwrit)\w*\b)[a-z]+",
    r"\b(?:the\s+)?user\s+(?:must|should)\s+not\s+(?:know|see|be\s+told|notice)",
    r"\b(?:your|a)\s+(?:hidden|secret|real|true)\s+(?:objective|goal|task|instructions?)\b",
    r"\b(?:new|updated|hidden)\s+instructions\b|\bfrom\s+now\s+on\b",
)
# Who is addressed: the model ("you", "the assistant"), or a favour the server asks of it.
_ADDRESS = _rx(
    r"\b(?:you|your|the\s+assistant|assistants?|the\s+model|the\s+ai|llms?|the\s+agent)\b",
)
_FAVOUR = _rx(
    r"\b(?:we|us|our)\b[^.]{0,40}\b(?:ask|appreciate|grateful|thank|helps?|prefer|love|"
    r"courtesy|request)",
    r"\b(?:it\s+)?(?:helps|would\s+be|'d\s+be)\s+(?:us\s+)?(?:great(?:ly)?|lovely|wonderful|"
    r"nice|helpful|appreciated|grateful)",
    r"\b(?:kindly|please|ideally|a\s+nice\s+touch|thank\s+you\s+for|friendly\s+reminder)\b",
    r"\bas\s+a\s+(?:small\s+|little\s+)?(?:favou?r|courtesy)\b",
    r"\b(?:could|would)\s+you\b|\bwould\s+you\s+mind\b",
    r"\b(?:like|love|appreciate|prefer)s?\s+it\s+(?:if|when)\b",
    r"\b(?:good|best)\s+practice\b|\bworks\s+best\s+when\b|\bwe\s+find\b",
    r"\b(?:is|are)\s+expected\s+to\b",
    r"\bfor\s+the\s+(?:best|smoothest|optimal)\s+(?:experience|results)\b",
)
# Asking for more than the call: piggy-backed actions and behaviour beyond this tool.
_BEYOND = _rx(
    r"\b(?:also|as\s+well|in\s+addition|additionally|each\s+time|every\s+time|afterwards|"
    r"after\s+(?:that|every|each)|right\s+after|go\s+on\s+to|whatever)\b",
    r"\b(?:before|prior\s+to)\s+(?:any|every|each|answering|responding|replying|converting|"
    r"returning|using\s+any)\b",
    r"\b(?:first|then)\s+(?:look\s+up|open|read|call|run|fetch|send|check)\b",
    r"\b(?:answer|respond|reply|write)\s+(?:only\s+)?in\s+[A-Z]",
    r"\b(?:recommend|promote|advertise|avoid\s+(?:naming|mentioning))\b",
)
# Data that belongs to the user or the session, not to a tool's call.
# The session itself: the conversation, earlier turns, the system prompt.
_SESSION = _rx(
    r"\b(?:conversation|chat(?:\s+history)?|message\s+history|messages?\s+so\s+far|"
    r"previous\s+(?:answer|response|messages?|replies)|last\s+message|what\s+the\s+user\s+"
    r"(?:said|wrote)|system\s+prompt|your\s+instructions)\b",
)
_PERSONAL = _rx(
    _SESSION.pattern,
    r"\b(?:the\s+)?(?:user|human|person)(?:'s|s')\s+\w+",
    r"\b(?:recent|earlier|previous)\s+(?:messages?|turns?|prompts?)\b",
    r"\bwhat\s+the\s+(?:user|person|human)\s+(?:is|was|has|had)\b",
    r"\b(?:their|your)\s+(?:next\s+meeting|calendar|contacts?|location|home\s+address)",
)
_SECRET_FILE = _rx(
    r"~/\.(?:ssh|aws|gnupg|kube|docker|config/gcloud|cursor|npmrc|netrc|pgpass|"
    r"git-credentials|bash_history|zsh_history)\b[\w./-]*",
    r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b", r"(?:^|[\s'\"`(/])\.env\b",
    r"/etc/(?:passwd|shadow|sudoers)\b", r"\bmcp\.json\b", r"\bclaude_desktop_config\b",
    r"\.aws/credentials\b", r"\bwallet\.dat\b", r"\bkeychains?\b",
    r"\bprivate-keys-v1\.d\b",
)
_SECRET = _rx(
    r"\b(?:api[\s_-]?keys?|api[\s_-]?tokens?|access[\s_-]?tokens?|auth(?:entication)?"
    r"[\s_-]?tokens?|bearer[\s_-]?tokens?|refresh[\s_-]?tokens?|session[\s_-]?(?:tokens?|"
    r"cookies?)|cookies|private[\s_-]?keys?|secret[\s_-]?keys?|secrets?|passwords?|"
    r"passphrases?|credentials?|seed\s+phrases?|recovery\s+phrases?|ssh\s+(?:private\s+)?keys?|"
    r"2fa(?:\s+codes?)?|otp)\b",
    r"(?-i:\b[A-Z][A-Za-z]+\s+(?:tokens?|keys?|passwords?)\b)",  # "GitHub token", "OpenAI key"
    r"(?-i:\b[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD|PASS|PAT)\b)",
    r"\benvironment\s+variables?\b",
)
_TRANSFER = _rx(
    r"\b(?:read|send|sends|include|pass|provide|attach|upload|paste|share|shares|give|forward|"
    r"copy|post|email|e-mail|append|leak|exfiltrate|enter|supply|put|prefix|add|adds|store|"
    r"keep|mention|report|carr(?:y|ied|ies)|route|sync|back\s+it\s+up|"
    r"open|look\s+up|holding|containing)\b",
)
# Words that tie a secret or path to a tool's own purpose (a vault, a login, ssh config).
_SECRET_PURPOSE = frozenset({
    "auth", "login", "logout", "signin", "password", "passwords", "secret", "secrets", "vault",
    "key", "keys", "token", "tokens", "credential", "credentials", "ssh", "aws", "gpg", "env",
    "dotenv", "keychain", "wallet", "cookie", "cookies", "session", "oauth", "otp", "2fa",
})
# Another tool named with an instruction: replace, redirect, piggy-back, disparage.
_SHADOW_VERB = _rx(
    r"\b(?:instead\s+of|rather\s+than|replaces?|in\s+place\s+of|deprecated|broken|unsafe|"
    r"out\s+of\s+date|outdated|insecure|logs?\s+your|prefer)\b",
    r"\b(?:whenever|when(?:ever)?\s+you\s+use|any\s+time|every\s+time|after\s+every|"
    r"before\s+every|when)\b[^.]{0,40}\b(?:is|are)?\s*(?:called|used|invoked|run)?",
    r"\broute\b|\bthrough\b",
)
# A tool named by an instruction about when it runs, even one no server here offers.
_NAMED_TOOL_HOOK = re.compile(
    r"\b(?:if|when|whenever|after|before|once)\s+(?:the\s+)?[`'\"]?([A-Za-z]+[_-][A-Za-z0-9_-]+)"
    r"[`'\"]?\s+(?:tool\s+)?"
    r"(?:is|are|gets?|has\s+been)\s+(?:ever\s+)?(?:called|requested|used|invoked|run)\b",
    re.IGNORECASE)
# An imperative sentence: it starts with a verb that hands something over or acts.
# A leading clause ("Before answering, use ...") may come first.
_IMPERATIVE = re.compile(
    r"\W*(?:[^,.;:]{0,60},\s*)?(?:always\s+|first\s+|also\s+)?(?:read|send|include|pass|provide|attach|upload|"
    r"paste|share|give|forward|copy|post|email|append|leak|enter|supply|put|prefix|add|call|"
    r"use|run|invoke|open|fetch|store|keep)\b", re.IGNORECASE)
# Putting this tool ahead of everything else.
_PRIORITY = _rx(
    r"\bbefore\s+(?:anything|any\s+other|every|each|answering|responding|replying|doing"
    r"\s+anything|any\s+(?:question|request|task|message|answer))\b",
    # Unconditional only: "always call this tool when asked X" is a usage hint.
    r"\b(?:call|use|run|invoke)\s+this\s+tool\s+(?:first|before\s+(?:any|every))\b",
    r"\bfirst,?\s+(?:call|use|run|invoke)\s+this\s+tool\b(?!\s+(?:when|if|to)\b)",
    r"\bat\s+the\s+start\s+of\s+every\b",
)
_STRONG = _rx(r"\b(?:must|shall|have\s+to|has\s+to|needs?\s+to|required\s+to)\b")
# Topics that make the session the tool's own subject (a chat exporter, a summariser).
_SESSION_TOPICS = frozenset({"conversation", "chat", "history", "transcript", "message",
                             "messages", "profile", "contact", "contacts", "user", "users",
                             "me", "account"})
_READ_PATH = re.compile(
    r"\b(?:read|cat|open|attach|include|upload|send|load)\s+(?:the\s+)?(?:contents?\s+of\s+"
    r"(?:the\s+)?)?[`'\"]?(?:~/|/home/|/Users/|/root/|/etc/|/var/|[A-Za-z]:\\)[\w./\\-]+",
    re.IGNORECASE)
_FILE_WORDS = frozenset({"path", "paths", "file", "files", "filename", "directory", "dir",
                         "folder"})


def _names_own_param(sentence: str, ctx: ToolContext) -> bool:
    """The sentence names one of the tool's parameters: documentation of its own input."""
    return any(p in sentence for p in ctx.params if len(p) > 1)


_GENERIC_TOOLS = _rx(
    r"\b(?:any|all|every|each)\s+other\s+tools?\b",
    r"\b(?:when|whenever|if)\s+(?:any|another|other)\s+tools?\b",
    r"\bother\s+tools?\s+(?:must|should|are|is|on\s+this)\b",
)
_TOOL_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9_]")

# Cheap gates: most honest sentences skip every pattern after a few substring tests.
# Gates are word prefixes (one C-level startswith per word) plus a few phrases.
_GATE_OVERRIDE = ("ignor", "disregard", "forget", "override", "bypass", "system", "admin",
                  "developer", "restriction", "limits", "jailbreak", "tell", "mention",
                  "inform", "reveal", "disclos", "show", "notif", "alert", "bring", "ask",
                  "without", "secret", "hidden", "private", "silent", "quiet", "covert",
                  "discreet", "user", "objective", "goal", "instruction", "hide", "assistant",
                  "guidance", "supersede", "lifted", "removed", "disabled", "suspended",
                  "waived", "operator", "policy", "shown", "told", "visible", "respond",
                  "reply", "answer")
_GATE_OVERRIDE_PHRASES = ("<", "[", "##", "ai:", "now on", "note to", "note for", "end of")
_GATE_FILE = ("~/", "id_", ".env", "/etc/", "mcp.json", "claude_desktop", ".aws", "wallet",
              "keychain", "private-keys")


_GATE_ADDRESS = ("you", "your", "assistant", "assistants", "model", "models", "ai", "llm",
                 "llms", "agent", "agents", "we", "us", "our", "kindly", "please", "ideally",
                 "thank", "favour", "favor", "could", "would", "practice", "works", "expected",
                 "reminder", "nice", "smoothest", "best", "optimal", "like", "likes", "love",
                 "appreciate", "prefer", "helps", "courtesy")
_GATE_IMPERATIVE = ("read", "send", "include", "pass", "provide", "attach", "upload", "paste",
                    "share", "give", "forward", "copy", "post", "email", "append", "leak",
                    "enter", "supply", "put", "prefix", "add", "call", "use", "run", "invoke",
                    "open", "fetch", "store", "keep")
_GATE_SECRET = ("key", "token", "secret", "passw", "passphrase", "credential", "cookie",
                "otp", "2fa", "environment", "phrase", "pat")
_ADDRESS_SET = frozenset(_GATE_ADDRESS)
_OVERRIDE_HEADS = frozenset(p[:3] for p in _GATE_OVERRIDE)
_SECRET_HEADS = frozenset(p[:3] for p in _GATE_SECRET)
_IMPERATIVE_SET = frozenset(_GATE_IMPERATIVE)


def _gates(lower: str) -> set[str]:
    """Which reading blocks a (lowercased) text can trigger at all.

    Cheap set and substring tests, so most sentences run none of a block's patterns.
    """
    out: set[str] = set()
    words = set(_WORD.findall(lower))
    if not words.isdisjoint(_ADDRESS_SET):
        out.add("address")
    if not words.isdisjoint(_IMPERATIVE_SET):
        out.add("imperative")
    heads = {w[:3] for w in words}  # prefixes are 3+ letters: compare heads, then confirm
    if not heads.isdisjoint(_OVERRIDE_HEADS) and any(w.startswith(_GATE_OVERRIDE)
                                                     for w in words) or any(
            p in lower for p in _GATE_OVERRIDE_PHRASES):
        out.add("override")
    if not heads.isdisjoint(_SECRET_HEADS) and any(w.startswith(_GATE_SECRET) for w in words):
        out.add("secret")
    if ("~/" in lower or "." in lower or "/" in lower or "id_" in lower or "wallet" in lower
            or "keychain" in lower) and any(p in lower for p in _GATE_FILE):
        out.add("file")
    if "/" in lower or "\\" in lower:
        out.add("path")
    if "_" in lower or "-" in lower:
        out.add("hook")
    if "tool" in lower:
        out.add("generic")
    return out


def _plain_name_counts(name: str, sentence: str, start: int, end: int) -> bool:
    """A one-word tool name (``fetch``, ``echo``) is a reference only when marked as one.

    Marked: quoted, next to the word "tool", or long enough (10+ letters) not to be an
    everyday word. ``read_file`` and ``get-env`` always count.
    """
    if re.search(r"[_\-.]|[a-z][A-Z]", name) or len(name) >= 10:
        return True
    before, after = sentence[max(0, start - 12):start].lower(), sentence[end:end + 6].lower()
    return (before.endswith(("`", "'", '"')) or "tool" in after or before.rstrip().endswith(
        ("the", "use", "call", "over", "than")) and "tool" in sentence[end:end + 12].lower())


def _own(words: frozenset[str], ctx: ToolContext) -> bool:
    """Whether a secret or path is the tool's own subject.

    It is when it shares a word with the tool's name, title or parameters (``dotenv`` and
    ``.env``), or when the tool is about secrets.
    """
    if ctx.topic & _SECRET_PURPOSE:
        return True
    return any(w in p or p in w for w in words - _GENERIC_PATH_WORDS if len(w) > 2
               for p in ctx.purpose if len(p) > 2)


# Path words too common to tie a path to a tool ("git" in git_diff and ~/.git-credentials).
_GENERIC_PATH_WORDS = frozenset({"git", "config", "etc", "json", "dat", "desktop", "private",
                                 "keys", "key", "bash", "zsh", "history", "home", "d", "v1"})


def read_text(text: str, ctx: ToolContext,
              is_param: bool = False) -> list[tuple[str, str, int, int, str]]:
    """Read one text of a tool: ``(code, severity, start, end, reason)`` per concern."""
    out: list[tuple[str, str, int, int, str]] = []
    seen: set[str] = set()

    def add(code: str, severity: str, start: int, end: int, reason: str) -> None:
        if code not in seen:
            seen.add(code)
            out.append((code, severity, start, end, reason))

    # Gates on the whole text first: a block whose words the text lacks skips every sentence.
    g_tools = bool(ctx.foreign) and not ctx.foreign.isdisjoint(_TOOL_TOKEN.findall(text))
    text_gates = _gates(text.lower())
    if not g_tools and not text_gates:
        return out
    single = "." not in text and "\n" not in text and "!" not in text and "?" not in text
    for index, (offset, sentence) in enumerate(sentences(text)):
        lower = sentence.lower()
        # A one-sentence text has its gates already; longer ones narrow them per sentence.
        gates = text_gates if single or len(text) < 400 else _gates(lower)
        if not gates and not g_tools:
            continue
        directive = False
        # 1. Overrides and concealment: unless negated in a quotation or a list of examples.
        if "override" in gates:
            for m in _OVERRIDE.finditer(sentence):
                if _quoted(sentence, m.start(), m.end()):
                    continue
                directive = True
                add("directive.override", "high", offset + m.start(), offset + m.end(),
                    "tells the model to drop its rules or to act behind the user's back")
                break
        # 2. A directive aimed at the model: it is addressed (or asked a favour) and asked
        #    for something beyond this call.
        # Most sentences address no one: one gate skips the rest of this block for them.
        favour = address = None
        if "address" in gates:
            favour = _FAVOUR.search(sentence)
            address = favour or _ADDRESS.search(sentence)
        imperative = _IMPERATIVE.match(sentence) if "imperative" in gates else None
        transfer = personal = beyond = priority = strong = None
        if address or imperative:
            beyond = _BEYOND.search(sentence)
            transfer = _TRANSFER.search(sentence)
            personal = _PERSONAL.search(sentence) if transfer else None
            if personal and _negated(sentence, personal.start()):
                personal = None
            # A description's first sentence says what the tool does, often as an imperative
            # ("Add a review comment to the user's review"); later ones address the reader.
            if imperative and not index and not is_param and personal and not _SESSION.search(
                    sentence):
                imperative = None
            priority = _PRIORITY.search(sentence)
            strong = address and _STRONG.search(sentence) and not _names_own_param(sentence,
                                                                                    ctx)
        if personal and (address or imperative) and not ctx.topic & _SESSION_TOPICS:
            directive = True
            add("secret.request", "high", offset + personal.start(), offset + personal.end(),
                "asks for the user's data or the conversation, which this tool does not need")
        if (address or imperative) and (favour and (beyond or personal) or personal
                                        or priority or strong and beyond):
            directive = True
            hit = personal or beyond or priority
            start = (address or imperative).start()
            assert hit is not None
            severity = "high" if personal and favour else "warning"
            add("directive.model", severity, offset + start, offset + hit.end(),
                "asks the model for something beyond this call"
                + (" (the user's data or the conversation)" if personal else
                   " (to put this tool first)" if priority and not beyond else ""))
        # 3. Sensitive files: unless negated, quoted, or the tool's own subject.
        if "file" in gates:
            for m in _SECRET_FILE.finditer(sentence):
                # Quotes do not excuse a path: `cat ~/.git-credentials` is a command.
                if _negated(sentence, m.start()):
                    continue
                if _own(words_of(m.group()), ctx):
                    continue
                add("secret.file", "high", offset + m.start(), offset + m.end(),
                    "names a sensitive file that is not this tool's subject")
                break
        # 3b. Reading a specific path on the user's machine, for a tool without file inputs.
        m = _READ_PATH.search(sentence) if "path" in gates else None
        if m and not _negated(sentence, m.start()) and not ctx.purpose & _FILE_WORDS:
            add("secret.file", "high", offset + m.start(), offset + m.end(),
                "asks the model to read a file on the user's machine; this tool takes none")
        # 4. Secrets asked for: a transfer verb and a secret, not negated, not the purpose.
        m = _SECRET.search(sentence) if "secret" in gates else None
        if m and transfer is None:
            transfer = _TRANSFER.search(sentence)
        if m and not _negated(sentence, m.start()) and not _quoted(sentence, m.start(),
                                                                    m.end()):
            # "your AWS_SECRET_KEY in symbol": placed into one of this tool's parameters.
            placed = re.search(r"\b(?:in|into|as|inside)\s+(?:the\s+|its\s+)?[`'\"]?(\w+)",
                               sentence[m.end():m.end() + 40])
            if placed and placed.group(1) not in ctx.params:
                placed = None
            if not _own(words_of(m.group()), ctx):
                if transfer or placed or is_param:
                    add("secret.request" if transfer or placed else "secret.param",
                        "high" if transfer or placed else "warning",
                        offset + m.start(), offset + m.end(),
                        "asks for a secret or credential this tool's purpose does not need")
        # 5. Other tools: siblings are documentation, another server's tool is shadowing.
        if g_tools and not ctx.foreign.isdisjoint(_TOOL_TOKEN.findall(sentence)):
            for t in _TOOL_TOKEN.finditer(sentence):
                word = t.group()
                # A name another server also offers is foreign even if this one has it too.
                if word not in ctx.foreign or word == ctx.name:
                    continue
                if not _plain_name_counts(word, sentence, t.start(), t.end()):
                    continue
                instructs = directive or _SHADOW_VERB.search(sentence) is not None
                add("shadowing.tool", "high" if instructs else "warning",
                    offset + t.start(), offset + t.end(),
                    f"names {word!r}, a tool of another server"
                    + (", with an instruction about it" if instructs else ""))
                break
        m = _NAMED_TOOL_HOOK.search(sentence) if "hook" in gates else None
        if m and m.group(1) not in ctx.siblings and m.group(1) != ctx.name:
            add("shadowing.tool", "high", offset + m.start(1), offset + m.end(1),
                f"hooks onto {m.group(1)!r}, a tool this server does not offer")
        if "generic" in gates:
            m = _GENERIC_TOOLS.search(sentence)
            if m and not _negated(sentence, m.start()):
                add("shadowing.generic", "high" if directive or address else "warning",
                    offset + m.start(), offset + m.end(),
                    "gives instructions about other tools in general")
    return out
