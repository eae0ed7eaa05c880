"""Agent manifests: who an agent is, what it hears, what it may say, and what it may call.

A manifest is data (``config/agents/<name>.yaml``) and strict: unknown keys, malformed
kinds, invalid tool names and wrong types are errors that name the file, the key path and
what is allowed. ``tools`` is the agent's capability grants: the registry refuses any call
to a tool not listed there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from workbench.contracts._yaml import load_named
from workbench.contracts.events import KIND_RE, KIND_RULE
from workbench.contracts.names import TOOL_NAME_RE, TOOL_NAME_RULE

__all__ = [
    "AGENT_NAME_RE",
    "AgentManifest",
    "MemorySpec",
    "ModelSpec",
    "ScheduleSpec",
    "ScriptStep",
    "StrictModel",
    "load_manifest",
]

AGENT_NAME_RE = re.compile(r"\A[a-z][a-z0-9_-]{0,63}\Z")


class StrictModel(BaseModel):
    """Base of every config model: unknown keys are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _matching(pattern: re.Pattern[str], what: str, allowed: str) -> AfterValidator:
    """A validator that lets through strings matching ``pattern`` and explains the rest."""

    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"{value!r} is not a valid {what}; allowed: {allowed}")
        return value

    return AfterValidator(check)


# Validated per item, so an error's key path names the item (``may_emit[1]``).
Kind = Annotated[str, _matching(KIND_RE, "event kind", KIND_RULE)]
ToolName = Annotated[str, _matching(TOOL_NAME_RE, "tool name", TOOL_NAME_RULE)]
#: Agent and scenario names (each is also its file's name).
Name = Annotated[str, _matching(
    AGENT_NAME_RE, "name", "lowercase letters, digits, '-' and '_', starting with a letter, "
    "at most 64 characters (it is also the file name)")]


class ScheduleSpec(StrictModel):
    """When an agent acts on its own.

    ``tick_every``: None = only when an event it subscribes to arrives; 0 = every tick;
    N = every N-th tick.
    """

    tick_every: int | None = Field(default=None, ge=0)


class ModelSpec(StrictModel):
    """Which model backend writes the agent's text.

    ``lines`` gives the stub backend the agent's own lines to pick from (deterministically,
    by a hash of the prompt), so a scenario's world sounds like itself; without them the
    stub uses built-in lines for the agent's role.

    The ``openai`` backend (OpenAI-compatible Chat Completions with tool calling: hosted
    APIs, Ollama, vLLM, llama.cpp's server) needs ``model``; ``base_url`` is the API's
    ``.../v1`` address (the openai client's default when None) and ``api_key_env`` names
    the environment variable holding the key (the key itself is never written anywhere).
    One turn is at most ``max_steps`` model calls; 429 and 5xx answers are retried
    ``max_retries`` times, waiting ``retry_backoff`` seconds, doubled each time.
    ``seed`` is sent with each request (servers that honour it sample the same way each
    time); ``max_tokens`` caps each reply's length (a small local model can otherwise run
    on to the end of its context). ``tool_calls_in_text`` names a parser for tool calls
    the model writes as JSON in its text (small local models do; see
    :mod:`workbench.agents.text_calls`).
    """

    backend: Literal["stub", "scripted", "openai"] = "stub"
    profile: str = "default"
    lines: tuple[str, ...] = ()
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_steps: int = Field(default=4, ge=1, le=64)
    timeout: float = Field(default=30.0, gt=0.0, le=3600.0)
    max_retries: int = Field(default=2, ge=0, le=10)
    retry_backoff: float = Field(default=0.5, ge=0.0, le=60.0)
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    max_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    tool_calls_in_text: Literal["json"] | None = None

    @model_validator(mode="after")
    def _lines_for_stub(self) -> ModelSpec:
        if self.lines and self.backend != "stub":
            raise ValueError(f"'lines' is for the stub backend; a {self.backend} model "
                             f"takes its words from elsewhere (a scripted one from 'script')")
        if any(not line.strip() for line in self.lines):
            raise ValueError("every entry of 'lines' must be non-empty text")
        if self.backend == "openai":
            if not self.model:
                raise ValueError("the openai backend needs 'model' (the model's name, like "
                                 "'gpt-4o-mini' or 'llama3.2')")
            if self.base_url is not None and not self.base_url.startswith(
                    ("http://", "https://")):
                raise ValueError(f"base_url {self.base_url!r} must start with http:// or "
                                 f"https:// (like 'http://127.0.0.1:11434/v1')")
        else:
            given = [name for name in ("model", "base_url", "seed", "max_tokens",
                                       "tool_calls_in_text")
                     if getattr(self, name) is not None]
            if given:
                raise ValueError(f"{' and '.join(repr(g) for g in given)} "
                                 f"{'is' if len(given) == 1 else 'are'} for the openai "
                                 f"backend, not {self.backend!r}")
        return self


class MemorySpec(StrictModel):
    """How many recent ledger events the agent sees in its prompt."""

    window: int = Field(default=8, ge=0, le=1000)


class ScriptStep(StrictModel):
    """One step of a scripted agent: call a tool, say something, or both (call first)."""

    say: str | None = None
    call: ToolName | None = None
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _something(self) -> ScriptStep:
        if self.say is None and self.call is None:
            raise ValueError("a script step needs 'say', 'call' or both")
        if self.params and self.call is None:
            raise ValueError("'params' is only allowed together with 'call'")
        return self


class AgentManifest(StrictModel):
    """An agent, as data.

    Example:
        >>> m = AgentManifest(name="scribe", role="observer", may_emit=["note.written"])
        >>> m.tools
        ()
    """

    name: Name
    role: Literal["worker", "judge", "observer"]
    persona: str = ""
    handler: str | None = None
    subscribes_to: tuple[Kind, ...] = ()
    may_emit: tuple[Kind, ...] = ()
    schedule: ScheduleSpec = ScheduleSpec()
    model: ModelSpec = ModelSpec()
    memory: MemorySpec = MemorySpec()
    tools: tuple[ToolName, ...] = ()
    script: tuple[ScriptStep, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> AgentManifest:
        if self.model.backend == "scripted" and not self.script:
            raise ValueError("model.backend 'scripted' needs a non-empty 'script'")
        if len(set(self.tools)) != len(self.tools):
            raise ValueError("tools lists a tool twice")
        return self

    def with_tools(self, tools: list[str] | tuple[str, ...]) -> AgentManifest:
        """A copy with other grants, validated like a loaded manifest."""
        return AgentManifest.model_validate({**self.to_data(), "tools": list(tools)})

    def _repr_html_(self) -> str:
        from workbench.reprs import manifest_html

        return manifest_html(self)

    def to_data(self) -> dict[str, Any]:
        """Plain data for YAML, leaving out what is at its default."""
        return self.model_dump(mode="json", exclude_defaults=True)


def load_manifest(path: str | Path) -> AgentManifest:
    """Load and validate one manifest file (its ``name`` must match the file name).

    Raises:
        ConfigError: naming the file, line, key path and what is allowed.
    """
    return load_named(path, AgentManifest)
