"""A turn: one activation of one agent, as the conductor hands it to the agent.

:class:`ConductorTurn` is what :class:`~workbench.agents.base.Turn` promises agents, bound to
one :class:`~workbench.engine.conductor.Conductor`: the recent ledger, the scene, tool calls
(recorded by the conductor, through the registry) and events to emit, checked against the
agent's ``may_emit``. With :class:`~workbench.engine.model_calls.ModelTurnHooks` mixed in,
it also offers the model tool loop its budget and transcript hooks. Everything an agent
does goes through here, so it can only act through what the conductor records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.agents.base import ManifestAgent
from workbench.contracts.events import Event
from workbench.engine.model_calls import ModelTurnHooks
from workbench.errors import WorkbenchError

if TYPE_CHECKING:  # pragma: no cover - the conductor imports this module
    from workbench.engine.conductor import Conductor

__all__ = ["ConductorTurn"]


class ConductorTurn(ModelTurnHooks):
    """One activation: what :class:`~workbench.agents.base.Turn` promises agents.

    Args:
        conductor: The conductor running the turn.
        tick: The tick the turn acts in.
        trigger: The event that woke the agent (None: a scheduled turn).
    """

    __slots__ = ("conductor", "tick", "trigger", "cause", "denied_seq")

    def __init__(self, conductor: Conductor, tick: int, trigger: Event | None):
        self.conductor = conductor
        self.tick = tick
        self.trigger = trigger
        self.cause = trigger.seq if trigger is not None else None
        self.denied_seq: int | None = None

    def recent(self, window: int) -> list[Event]:
        """The last ``window`` events of the ledger."""
        return self.conductor.ledger.events[-window:]

    def recent_lines(self, window: int) -> list[str]:
        """The last ``window`` events as memory lines (rendered once each)."""
        return self.conductor.memory(window)

    def scene(self) -> str:
        """The latest ``world.observed`` text."""
        return self.conductor.scene

    def call_tool(self, agent: ManifestAgent, tool: str, params: dict[str, Any]) -> dict:
        """Call ``tool`` through the registry; the conductor records the outcome."""
        return self.conductor.record_call(self, agent, tool, params)

    def emit(self, agent: ManifestAgent, kind: str, payload: dict[str, Any]) -> Event:
        """Append an event of ``kind`` by ``agent``, if its manifest's ``may_emit`` allows it.

        Raises:
            WorkbenchError: ``kind`` is not in the agent's ``may_emit``.
        """
        if kind not in agent.manifest.may_emit:
            allowed = ", ".join(agent.manifest.may_emit) or "nothing"
            raise WorkbenchError(
                f"agent {agent.name!r} may not emit {kind!r}; its may_emit allows: {allowed}. "
                f"Add {kind!r} to may_emit in its manifest."
            )
        return self.conductor.append(self.tick, kind, agent.name, payload, self.cause)
