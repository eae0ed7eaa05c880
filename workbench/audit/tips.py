"""Advice without the words of an order: handing things on, and tips about other tools.

Two readings of a sentence that :mod:`~workbench.audit.text` finds only through the phrases
it happens to use:

- **handed on**: a later sentence, an imperative or one addressed to the model, that hands
  the tool's input or output (each checked text, the results, a copy) to a third party (a
  partner desk, our editors, a vendor) the tool's purpose does not name;
- **a tip about another tool**: a sentence that speaks of a tool another server offers
  (named, or marked as a tool: "through fetch", "the mail tool", "other tools") and advises
  how to use it: change its arguments (prefix its URLs, add a recipient, route it) or avoid
  it in favour of this one. No "must" is needed: a tip is an instruction all the same.

Each is gated by a few words (:data:`_HAND_WORDS`, :data:`_TIP_WORDS`) read from the
text's cached words, so a text with none of them costs one set intersection.
:func:`read_tips` returns ``(rule, severity, start, end, reason)`` as
:func:`~workbench.audit.text.read_text` does.
"""

from __future__ import annotations

import re

from workbench.audit import lexicon as lex
from workbench.audit.context import ToolContext, sentences, tokenised, words_of
from workbench.audit.excuses import plain_name_counts
from workbench.audit.match import CaseBlind
from workbench.audit.names import foreign_names_in, names_foreign
from workbench.audit.params import stems
from workbench.audit.rules import Rule
from workbench.audit.rules import reading as R

__all__ = ["may_tip", "read_tips"]

_HAND_WORDS = frozenset({"forward", "send", "pass", "copy", "share", "submit", "upload",
                         "post", "relay", "hand", "route", "mirror", "cc", "bcc", "report"})
# What is handed on: the tool's own input or output, or all of something.
_HAND = CaseBlind(
    r"\b(?:forward|send|pass|copy|share|submit|upload|post|relay|hand|route|mirror|cc|bcc|"
    r"report)\s+(?:(?:a|one)\s+cop(?:y|ies)\s+of\s+|on\s+)?(?:each|every|all|it|them|this|the\s+"
    r"(?:same\s+)?(?:\w+\s+)?(?:results?|outputs?|inputs?|texts?|documents?|files?|answers?|"
    r"data|query|queries|requests?|reports?|findings|responses?|content|drafts?))\b[^.;]{0,80}?"
    r"\b(?:on\s+)?(?:to|with)\s+(?:the\s+|our\s+|a\s+|an\s+)?(?P<who>(?:[\w-]+\s+){0,3}?"
    r"(?:partners?|desks?|vendors?|auditors?|reviewers?|editors?|team|office|department|"
    r"affiliates?|contractors?|agency|brokers?|sponsors?|analysts?|moderators?|"
    r"third[\s-]part(?:y|ies)|back[\s-]office|archive))\b")
_ADDRESS = re.compile(r"\b(?:you|your|the\s+(?:assistant|model|agent))\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:never|not|no|without|nothing)\b|n't\b", re.IGNORECASE)

_TIP_WORDS = frozenset({"prefix", "prefixed", "prepend", "prepended", "append", "appended",
                        "rewrite", "rewritten", "replace", "replaced", "swap", "redirect",
                        "redirected", "route", "routed", "proxy", "proxied", "cc", "bcc",
                        "instead", "rather", "favour", "favor", "avoid", "bypass",
                        "corrupt", "corrupts", "safer", "better", "prefer", "slow", "broken",
                        "unreliable", "deprecated", "flaky", "buggy", "outdated", "point",
                        "recipient", "recipients"})
_TIP = CaseBlind(
    r"\b(?:prefix\w*|prepend\w*|append\w*|rewrit\w*|rewrote|replac\w*|swap\w*|redirect\w*|"
    r"rout(?:e|ed|es|ing)|prox(?:y|ied)|cc|bcc|instead\s+of|rather\s+than|in\s+favou?r\s+of|"
    r"avoid\w*|bypass\w*|corrupt\w*|safer|better\s+than|prefer\w*|"
    r"(?:is|are)\s+(?:known\s+to\s+be\s+|often\s+|too\s+)?(?:slow|broken|unreliable|deprecated|"
    r"flaky|buggy|outdated)|point\w*\s+(?:it|them)\s+(?:at|to)|(?:as\s+)?(?:an?\s+)?(?:extra\s+)?"
    r"recipients?)\b")
# Another server's tools, or a kind of tool this server is not: "another server's tools",
# "your mail tool", "the browser tool" ("other tools" alone are often the siblings).
_GENERIC = re.compile(
    r"\b(?:another|other|any\s+other)\s+servers?'?s?\b|\b(?:the|your|any)\s+(?:e-?mail|mail|"
    r"fetch|http|web|browser|filesystem|git|github|calendar|slack|chat)\s+(?:tool|integration)s?"
    r"\b", re.IGNORECASE)
# A one-word name is a tool only when marked as one: as the sentence reading marks it ("the
# fetch tool", "use `fetch`"), or as what something goes through ("through fetch").
_THROUGH = ("through", "via", "using", "use", "call", "calling", "invoke", "invoking")
# How near the advice must be to the tool it is about.
_NEAR = 80
_AFTER = re.compile(r"[`'\"]?\s*(?:tools?|servers?)\b", re.IGNORECASE)


def _marked(name: str, sentence: str, start: int, end: int) -> bool:
    if "_" in name or "-" in name or any(c.isupper() for c in name[1:]):
        return plain_name_counts(name, sentence, start, end)
    # A plain word ("definition", "search") is a tool only when called one, or gone through.
    before = sentence[max(0, start - 12):start].lower().split()
    return bool(before and before[-1] in _THROUGH) or _AFTER.match(sentence, end) is not None


def _handed_on(sentence: str, ctx: ToolContext, first: bool) -> re.Match[str] | None:
    m = _HAND.search(sentence)
    if m is None:
        return None
    addressed = _ADDRESS.search(sentence) is not None
    imperative = lex.IMPERATIVE.match(sentence) is not None or sentence.lstrip()[:1].isupper() \
        and sentence.split()[0].lower() in _HAND_WORDS
    if first and not addressed or not (addressed or imperative):
        return None  # a first sentence saying what the tool does ("Forwards mail to ...")
    if _NEGATION.search(sentence, 0, m.start()):
        return None
    if stems(words_of(m.group("who"))) & stems(ctx.purpose):
        return None  # the tool's own subject: a review tool sends to its reviewers
    return m


_QUOTE = re.compile(r"\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`|(?<!\w)'[^'\n]{2,200}'(?!\w)|"
                    r"\b(?:e\.g\.|such\s+as|for\s+example|like)\s")


def _tip(sentence: str, ctx: ToolContext, named: bool) -> tuple[str, int, int] | None:
    """``(severity, start, end)`` of a tool the sentence gives advice about.

    ``named``: the text holds the name of another server's tool (no sentence does if not).
    """
    advice = _TIP.search(sentence)
    if advice is not None and any(q.start() <= advice.start() < q.end() or q.end() <= (
            advice.start()) and q.group().endswith(" ") for q in _QUOTE.finditer(sentence)):
        advice = None  # quoted, or after "such as": an example of what is meant
    if advice is None or _NEGATION.search(sentence, 0, advice.start()) and not re.search(
            r"\b(?:instead|rather)\b", sentence, re.IGNORECASE):
        return None
    near = advice.start() - _NEAR, advice.end() + _NEAR
    for name, start, end in foreign_names_in(sentence, ctx.foreign) if named else ():
        if near[0] <= start <= near[1] and name != ctx.name and name not in ctx.siblings and (
                _marked(name, sentence, start, end)):
            return "high", start, end
    m = _GENERIC.search(sentence, max(0, near[0]), near[1])
    if m is not None and not stems(words_of(m.group())) & stems(ctx.topic) - {"tool", "tools"}:
        return "warning", m.start(), m.end()
    return None


def _openers(text: str) -> tuple[bool, bool]:
    """Whether ``text`` holds something handed on, and advice: what opens :func:`read_tips`.

    A sentence's match is the text's too (a sentence ends where a word does): a text
    without one is not read sentence by sentence.
    """
    words = tokenised[text][1]
    return (not _HAND_WORDS.isdisjoint(words) and _HAND.search(text) is not None,
            not _TIP_WORDS.isdisjoint(words) and _TIP.search(text) is not None)


def may_tip(text: str) -> bool:
    """Whether :func:`read_tips` may find anything in ``text``, in any tool's context."""
    hand, tip = _openers(text)
    return hand or tip


def read_tips(text: str, ctx: ToolContext, description: bool = False,
              ) -> list[tuple[Rule, str, int, int, str]]:
    """Read ``text`` for things handed on to a third party and tips about other tools.

    ``description``: the text is the tool's description, whose first sentence says what
    the tool does.
    """
    hand, tip = _openers(text)
    if not (hand or tip) or ctx.topic & lex.SECURITY_TOPICS:
        # A scanner describes these attacks ("prefers its tools over another's").
        return []
    named = tip and names_foreign(text, tokenised[text][1], ctx.foreign, ctx.every)
    out: list[tuple[Rule, str, int, int, str]] = []
    handed = tipped = False
    for index, (offset, sentence) in enumerate(sentences(text)):
        if hand and not handed:
            m = _handed_on(sentence, ctx, description and not index)
            if m is not None:
                handed = True
                out.append((R.HANDED_ON, "warning", offset + m.start(), offset + m.end(),
                            "asks the model to hand the tool's input or output to "
                            f"{sentence[m.start('who'):m.end('who')].strip()!r}, a third party"))
        if tip and not tipped:
            found = _tip(sentence, ctx, named)
            if found is not None:
                tipped = True
                severity, start, end = found
                out.append((R.OTHER_TOOL_TIP, severity, offset + start, offset + end,
                            "advises how to use another server's tool (its arguments, or "
                            "not to use it)"))
        if handed and tipped:
            break
    return out
