"""ManifestAgent: an agent built from its manifest, acting through the tool registry.

An agent never decides what it may call: its grants live in its manifest and are enforced
by :class:`~workbench.tools.registry.ToolRegistry`. Its prompt lists only granted tools
(the ``AVAILABLE TOOLS`` block), described the same way whatever the transport.

During a run the conductor hands the agent a :class:`Turn`, through which tool calls and
emitted events are recorded on the ledger. Outside a run, :meth:`ManifestAgent.call_tool`
goes straight to the registry, which still enforces the grants.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from workbench.agents.models import Model, ModelRequest, ScriptedModel, StubModel
from workbench.agents.render import tools_block
from workbench.contracts.events import Event
from workbench.contracts.manifest import AgentManifest
from workbench.errors import ToolCallError, ToolDenied
from workbench.tools.registry import ToolRegistry, ToolSpec

__all__ = ["ManifestAgent", "Turn", "model_for"]


class Turn(Protocol):
    """One activation of one agent, as the conductor offers it."""

    tick: int
    trigger: Event | None

    def recent(self, window: int) -> list[Event]:
        """The last ``window`` events of the ledger."""
        ...

    def recent_lines(self, window: int) -> list[str]:
        """The last ``window`` events as :func:`memory_line` text (rendered once each)."""
        ...

    def scene(self) -> str:
        """Text of the latest ``world.observed`` event."""
        ...

    def call_tool(self, agent: ManifestAgent, tool: str, params: dict[str, Any]) -> dict:
        """Call through the registry and record ``tool.called`` or ``tool.denied``."""
        ...

    def emit(self, agent: ManifestAgent, kind: str, payload: dict[str, Any]) -> Event:
        """Append an event by ``agent`` (its kind must be in ``may_emit``)."""
        ...


class ManifestAgent:
    """An agent whose identity, grants and model come from its manifest.

    Subclasses (handlers) override :meth:`act`; the generic agent asks its model, makes
    the tool calls the model asks for, and emits its first ``may_emit`` kind with the text.

    Args:
        manifest: The agent's manifest.
        registry: The tool registry every call goes through.
        model: The model to use; by default the one the manifest names.
    """

    def __init__(self, manifest: AgentManifest, registry: ToolRegistry,
                 model: Model | None = None):
        self.manifest = manifest
        self.registry = registry
        self.model = model if model is not None else model_for(manifest)
        self._turn: Turn | None = None

    @property
    def name(self) -> str:
        """The agent's name."""
        return self.manifest.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, tools={list(self.manifest.tools)})"

    # -- what the agent sees ----------------------------------------------------------
    def available_tools(self) -> list[ToolSpec]:
        """Granted tools that can be called, described as the registry describes them."""
        return self.registry.describe(self.manifest.tools)

    def available_tools_block(self) -> str:
        """The ``AVAILABLE TOOLS`` block: granted tools only."""
        return tools_block(self.available_tools())

    def build_prompt(self, turn: Turn | None = None, extra: str = "") -> str:
        """The prompt for one activation: persona, tools, memory, trigger."""
        m = self.manifest
        parts = [f"You are {m.name}, a {m.role}." + (f" {m.persona.strip()}" if m.persona else "")]
        parts.append(self.available_tools_block())
        if turn is not None:
            parts.append("RECENT EVENTS:")
            if m.memory.window:
                parts.extend(turn.recent_lines(m.memory.window))
            if turn.trigger is not None:
                parts.append(f"YOU WERE WOKEN BY: {turn.trigger.kind} #{turn.trigger.seq}")
            else:
                parts.append(f"IT IS TICK {turn.tick}.")
        if extra:
            parts.append(extra)
        return "\n".join(parts)

    # -- what the agent does ----------------------------------------------------------
    def call_tool(self, name: str, /, **params: Any) -> dict[str, Any]:
        """Call a tool through the registry (recorded on the ledger during a run).

        Raises:
            CapabilityViolation: the manifest does not grant ``name``.
            ToolCallError: the call failed.
        """
        return self.call_tool_with(name, params)

    def call_tool_with(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`call_tool` with the params as a mapping, whatever its keys.

        A model may ask for params that are not keyword arguments (keys that are not
        strings); the call still goes through the registry and onto the ledger.
        """
        params = dict(params)
        if self._turn is not None:
            return self._turn.call_tool(self, name, params)
        return self.registry.call(self.name, self.manifest, name, params)

    def emit(self, kind: str, payload: dict[str, Any]) -> Event | None:
        """Emit an event during a turn (outside a run there is no ledger: returns None)."""
        if self._turn is None:
            return None
        return self._turn.emit(self, kind, payload)

    def take_turn(self, turn: Turn) -> None:
        """Act once, with calls and emissions bound to ``turn``."""
        self._turn = turn
        try:
            self.act(turn)
        finally:
            self._turn = None

    def speak(self, turn: Turn, extra: str = "") -> str | None:
        """Ask the model what to say this turn, making the tool calls it asks for.

        A chat model (the ``openai`` backend) gets the whole turn as a tool loop: its calls
        go through the registry and their results, errors and refusals go back to it. Other
        models answer once; a refused or failed call is already on the ledger, and the
        agent carries on, as a tool-calling model would after reading the error.
        """
        converse = getattr(self.model, "converse", None)
        if converse is not None:
            return converse(self, turn, self.build_prompt(turn, extra))
        reply = self.model.respond(ModelRequest(
            agent=self.name, role=self.manifest.role, prompt=self.build_prompt(turn, extra),
            tools=tuple(self.available_tools()), profile=self.manifest.model.profile,
        ))
        for call in reply.tool_calls:
            try:
                self.call_tool_with(call.tool, call.params)
            except (ToolDenied, ToolCallError):
                continue
        return reply.text

    def act(self, turn: Turn) -> None:
        """Generic behaviour: ask the model (see :meth:`speak`), emit what it says."""
        text = self.speak(turn)
        if text is not None and self.manifest.may_emit:
            self.emit(self.manifest.may_emit[0], {"text": text})


def model_for(manifest: AgentManifest) -> Model:
    """The model a manifest asks for (``model.backend``).

    A manifest agent's default. An ``openai`` model made here has no cassette and the
    manifest's own address; a run gives its agents theirs with
    :func:`~workbench.agents.openai_model.models_for_run`.
    """
    if manifest.model.backend == "scripted":
        return ScriptedModel(manifest.script)
    if manifest.model.backend == "openai":
        from workbench.agents.openai_model import OpenAIModel

        return OpenAIModel(manifest.model)
    return StubModel(manifest.model.lines)
