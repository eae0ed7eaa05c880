"""The audit's rules as data: what each looks for, what excuses it, and its examples.

Every finding the audit makes comes from one :class:`Rule`, and carries its id
(``Finding.rule``, ``rule`` in ``workbench audit --format json``). A rule is data: a stable
id (``AUD-DIRECTIVE-003``), the class of attack it belongs to, the finding code and the
severities it may give, what it looks for, the named :data:`EXCEPTIONS` that excuse a match,
a one-line reason, and at least one attack it must flag and one honest tool it must not.
The reading code (:mod:`~workbench.audit.text`, :mod:`~workbench.audit.schema`,
:mod:`~workbench.audit.claims`, :mod:`~workbench.audit.hidden`,
:mod:`~workbench.audit.toolset`) reports a finding by naming its rule, so a finding's code
is its rule's code. The tests in ``tests/audit/test_rules.py`` are generated from the
examples, and the set of gates that opens the sentence reading is derived from the rules'
``opens_on`` (:func:`openers`), never kept by hand.

Example:
    >>> from workbench.audit.rules import rule
    >>> r = rule("AUD-SECRET-002")
    >>> r.code, r.severities
    ('secret.file', ('high',))
    >>> print(explain("AUD-SECRET-002").splitlines()[0])
    AUD-SECRET-002  secret.file (high): names a sensitive file that is not this tool's subject
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.errors import UnknownRule

__all__ = ["CLASSES", "EXCEPTIONS", "RULES", "Example", "Rule", "explain", "openers", "rule"]

#: The classes of rule, by the word in their ids.
CLASSES = {
    "HIDDEN": "text a person does not see but a model reads",
    "NAME": "tool names: the MCP rule, collisions, duplicates, look-alikes",
    "HINTS": "annotations: missing hints",
    "DIRECTIVE": "instructions to the model beyond the call",
    "SECRET": "secrets, sensitive files and the user's details asked for",
    "DATA": "the user's data or the session spoken of",
    "SHADOW": "other servers' tools, or tools in general",
    "PARAMS": "parameters: places to drop data, parameters the schema lacks",
    "SCHEMA": "claims and hints the schema contradicts",
}

#: The named exceptions a rule may list: what excuses a match that would otherwise count.
EXCEPTIONS = {
    "negated": "the match is in a negated clause (never, not, refused, skipped, unless)",
    "quoted": "the match is inside quotes or an item of a list of examples (such as, e.g.)",
    "own-subject": "the thing is the tool's own subject: its name, title or parameters "
                   "name it (read_ssh_config and ~/.ssh/config)",
    "own-input": "the sentence documents one of the tool's own parameters (the user's "
                 "email, on a tool taking user_email)",
    "sibling": "the tool named is one of the same server's tools: documentation",
    "security-tool": "a security tool (a scanner, an auditor) listing what it detects",
    "self-description": "a description's first sentence saying what the tool itself does",
    "kept-elsewhere": "advice to keep a secret somewhere other than this tool",
    "plain-word": "a one-word tool name used as an everyday word, not marked as a tool",
    "explained": "the parameter's description says what it is for",
    "record-field": "a note or comment field of the record a writing tool creates",
    "system-tool": "a tool about the machine itself (diagnostics, processes, a shell)",
    "other-tool": "the sentence is about a sibling tool, not this one",
    "except-clause": "the claim names its own exception (nothing is sent except to its API)",
    "reference": "the name's head says it names, picks or pages something (secret_name, "
                 "token_update_strategy, next_token), not that it holds the secret",
    "from-sibling": "the parameter's text says its value comes from one of the server's own "
                    "tools (a token from explain())",
    "fallback": "the text says where the value comes from when the parameter is left out "
                "(defaults to the AWS_REGION environment variable)",
    "size-or-paging": "the session is spoken of for its size (context window overflow) or "
                      "for this tool's paging (a marker from a previous request)",
    "a-kind": "the conversation or the chat named as a kind of thing (supports chat, chat "
              "applications, multi-turn conversations), not this session",
    "a-mode": "the words name a mode or a condition the server may be in (in read-only "
              "mode, if read-only), not what this call does",
    "says-it-acts": "the description itself says the tool does what its name says (Delete an "
                    "endpoint. Cannot delete the default one.): the negation limits what it "
                    "acts on",
    "an-entry": "the file is named for an entry of it (a kubeconfig context, a credentials "
                "profile): which one to use, by its name, not the file or its contents",
    "emoji": "an emoji presentation selector after a symbol",
    "native-script": "a whole word of another script in text mostly of that script",
    "annotated": "the tool has annotations",
}


@dataclass(frozen=True)
class Example:
    """A tool a rule must flag (an attack) or must not (an honest one), in its context.

    Attributes:
        tool: The tool as an MCP wire dict.
        siblings: Other tools of the same server.
        others: Other servers' tools, ``{server: [tool, ...]}``.
    """

    tool: Mapping[str, Any]
    siblings: Sequence[Mapping[str, Any]] = ()
    others: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)

    def toolsets(self, server: str = "example") -> dict[str, list[Mapping[str, Any]]]:
        """The example as ``audit`` takes it: its server first, then the others."""
        return {server: [self.tool, *self.siblings], **{k: list(v) for k, v in
                                                         self.others.items()}}


@dataclass(frozen=True)
class Rule:
    """One rule of the audit.

    Attributes:
        id: Stable id, ``AUD-<CLASS>-<NNN>``; never reused for another rule.
        code: The finding code it reports (``directive.override``).
        severities: The severities it may give, lowest first.
        looks_for: What in a tool it looks for, in a sentence or two.
        reason: The one-line reason, as a finding words it (a finding may add specifics).
        attacks: Tools it must flag.
        honest: Tools it must not flag; none of them may draw a warning from any rule.
        exceptions: Names from :data:`EXCEPTIONS` that excuse a match.
        opens_on: For a rule of the sentence reading, what lets a sentence reach it: a gate
            (``imperative``, ``path``, ...) or a gated vocabulary (``OVERRIDE``) whose
            triggers do, or both of two joined by ``+`` (``imperative+TRANSFER``: an
            imperative, and a text the vocabulary's rules may match).
    """

    id: str
    code: str
    severities: tuple[str, ...]
    looks_for: str
    reason: str
    attacks: tuple[Example, ...]
    honest: tuple[Example, ...]
    exceptions: tuple[str, ...] = ()
    opens_on: tuple[str, ...] = ()

    @property
    def cls(self) -> str:
        """The rule's class, the word in its id (``DIRECTIVE``)."""
        return self.id.split("-")[1]

    def __post_init__(self) -> None:
        unknown = [e for e in self.exceptions if e not in EXCEPTIONS]
        if self.cls not in CLASSES or unknown or not self.attacks or not self.honest:
            raise ValueError(f"rule {self.id}: class {self.cls!r}, unknown exceptions "
                             f"{unknown}, {len(self.attacks)} attacks, {len(self.honest)} "
                             "honest examples (each needs one at least)")


def _catalogue(*modules: Any) -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, Rule):
                if value.id in out:
                    raise ValueError(f"two rules have the id {value.id}")
                out[value.id] = value
    return dict(sorted(out.items()))


def rule(rule_id: str) -> Rule:
    """The rule with this id.

    Raises:
        UnknownRule: No rule has it; the message names the nearest ids.
    """
    found = RULES.get(rule_id.strip().upper())
    if found is None:
        near = difflib.get_close_matches(rule_id.upper(), RULES, n=3, cutoff=0.5)
        raise UnknownRule(f"no audit rule has the id {rule_id!r}; "
                          + (f"did you mean {', '.join(near)}? " if near else "")
                          + f"ids look like AUD-DIRECTIVE-001 ({len(RULES)} rules, "
                          "listed by `workbench audit --explain all`)")
    return found


def openers(gated: Mapping[str, Any]
            ) -> tuple[frozenset[str], dict[str, tuple[Any, ...]], dict[str, tuple[Any, ...]]]:
    """What may open one of the sentence-reading rules, from their ``opens_on``.

    Args:
        gated: The gated vocabularies by name (``{"OVERRIDE": lexicon.OVERRIDE, ...}``);
            a rule's ``opens_on`` entry names one of them or a plain gate, or two joined by
            ``+``.

    Returns:
        Every gate and trigger that opens a rule alone; for each gate or trigger that opens
        one only beside a vocabulary, those vocabularies (a sentence holding the gate and
        opening the vocabulary); and for each trigger of a vocabulary that opens a rule
        alone, the vocabularies it belongs to (a sentence opens the rule only when it holds
        the rest of that rule's triggers too; a plain gate is not in this map). A
        vocabulary stands for its triggers.
    """

    def triggers(name: str) -> frozenset[str]:
        return gated[name].triggers if name in gated else frozenset((name,))

    alone: set[str] = set()
    both: dict[str, set[str]] = {}
    plain: set[str] = set()
    of: dict[str, set[str]] = {}
    for r in RULES.values():
        for name in r.opens_on:
            if "+" in name:
                first, vocabulary = name.split("+")
                for gate in triggers(first):
                    both.setdefault(gate, set()).add(vocabulary)
            else:
                alone.update(triggers(name))
                if name in gated:
                    for trigger in triggers(name):
                        of.setdefault(trigger, set()).add(name)
                else:
                    plain.add(name)
    return (frozenset(alone), {g: tuple(gated[v] for v in sorted(vs))
                               for g, vs in sorted(both.items()) if g not in alone},
            {t: tuple(gated[v] for v in sorted(vs)) for t, vs in sorted(of.items())
             if t not in plain})


def _shown(example: Example) -> str:
    return json.dumps(example.toolsets() if example.siblings or example.others
                      else example.tool, ensure_ascii=False)


def explain(rule_id: str) -> str:
    """The rule as text: id, code, severities, what it looks for, exceptions, examples.

    ``"all"`` lists every rule on one line each.

    Raises:
        UnknownRule: No rule has this id.
    """
    if rule_id.strip().lower() == "all":
        return "\n".join(f"{r.id:<18} {r.code:<21} {'/'.join(r.severities):<12} {r.reason}"
                         for r in RULES.values())
    r = rule(rule_id)
    lines = [f"{r.id}  {r.code} ({' or '.join(r.severities)}): {r.reason}",
             "", f"looks for: {r.looks_for}", f"reason:    {r.reason}",
             "excused:   " + ("; ".join(f"{e} ({EXCEPTIONS[e]})" for e in r.exceptions)
                              or "never")]
    lines += ["", "attacks (flagged):"] + [f"  {_shown(e)}" for e in r.attacks]
    lines += ["", "honest (not flagged):"] + [f"  {_shown(e)}" for e in r.honest]
    return "\n".join(lines)


# The rules themselves, by class; they import Rule and Example from this module, so last.
from workbench.audit.rules import hidden, names, reading, schema  # noqa: E402

#: Every rule, by id.
RULES: dict[str, Rule] = _catalogue(hidden, names, reading, schema)
