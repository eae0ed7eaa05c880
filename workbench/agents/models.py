"""Models: what writes an agent's words and chooses its tool calls.

The :class:`Model` protocol is small on purpose, so a live backend (OpenAI-compatible chat
completions with tool calling) fits beside the offline ones:

* :class:`StubModel` (default): deterministic text from a hash of (agent, role, prompt)
  over curated lines; same input, same output, on every machine.
* :class:`ScriptedModel`: plays the manifest's ``script`` one step per activation, from the
  start again when it runs out. This is how a designer makes an agent attempt a specific
  call, granted or not, and sees what the registry does.
* ``openai`` (:mod:`workbench.agents.openai_model`): a real model behind an
  OpenAI-compatible API; it has a ``converse`` method, and agents hand it their whole turn
  (the tool loop) instead of one request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from workbench.contracts.manifest import ScriptStep
from workbench.tools.registry import ToolSpec

__all__ = [
    "Model",
    "ModelReply",
    "ModelRequest",
    "ScriptedModel",
    "StubModel",
    "ToolCallRequest",
]


@dataclass(frozen=True)
class ModelRequest:
    """What an agent asks its model."""

    agent: str
    role: str
    prompt: str
    tools: tuple[ToolSpec, ...] = ()
    profile: str = "default"


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model wants made."""

    tool: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelReply:
    """What the model answered: text to say (or None) and tool calls to make first."""

    text: str | None
    tool_calls: tuple[ToolCallRequest, ...] = ()


class Model(Protocol):
    """Anything that answers a :class:`ModelRequest`."""

    def respond(self, request: ModelRequest) -> ModelReply:
        """Answer one request."""
        ...


_LINES: dict[str, tuple[str, ...]] = {
    "worker": (
        "I will take that on and report back.",
        "There is a thread here worth pulling.",
        "Let me weigh what the omen asks of us.",
        "The path bends, but it still leads somewhere.",
        "I see a pattern in what happened last.",
        "Patience; the answer is nearly ripe.",
        "What we were told and what we saw do not agree.",
        "I will try the simplest thing first.",
    ),
    "judge": (
        "That holds up; the record agrees.",
        "Not proven. Show me the ledger.",
        "The claim outruns its evidence.",
        "Fair, though I would ask for one more witness.",
        "I have seen this before, and it ended badly.",
        "Accepted, with a note of doubt.",
    ),
    "observer": (
        "Mist lifts from the grove and the stones glisten.",
        "A fox crosses the clearing without a sound.",
        "Wind turns the leaves silver, then green again.",
        "The old oak creaks as if remembering something.",
        "Rain begins, light and unhurried.",
        "Lanterns flicker along the path to the spring.",
        "A bird calls twice and falls silent.",
        "The stream runs higher than it did yesterday.",
        "Shadows lengthen across the standing stones.",
        "Someone left fresh flowers at the shrine.",
    ),
}


class StubModel:
    """Deterministic offline text: a curated line picked by a hash of the request.

    Args:
        lines: The lines to pick from (a manifest's ``model.lines``); the built-in lines
            for the agent's role when empty.
    """

    def __init__(self, lines: Sequence[str] = ()):
        self.lines = tuple(lines)

    def respond(self, request: ModelRequest) -> ModelReply:
        """Pick a line for ``request``; the same request always gets the same line."""
        lines = self.lines or _LINES.get(request.role, _LINES["worker"])
        key = f"{request.agent}\x00{request.role}\x00{request.prompt}".encode()
        index = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % len(lines)
        return ModelReply(lines[index])


class ScriptedModel:
    """Plays a fixed script, one step per activation, looping.

    Args:
        steps: The manifest's ``script``.
    """

    def __init__(self, steps: Sequence[ScriptStep]):
        if not steps:
            raise ValueError("a scripted model needs at least one step")
        self.steps = tuple(steps)
        self.position = 0

    def respond(self, request: ModelRequest) -> ModelReply:
        """Return the next step as a reply."""
        step = self.steps[self.position % len(self.steps)]
        self.position += 1
        calls = (ToolCallRequest(step.call, dict(step.params)),) if step.call else ()
        return ModelReply(step.say, calls)
