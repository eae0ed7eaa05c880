"""A run's model calls: the governor's count, their telemetry and the turns' transcripts.

The ``openai`` tool loop (:mod:`workbench.agents.tool_loop`) asks its turn before each
model call (``model_call_starting``: ``max_model_calls``) and reports after it
(``model_call_done``). The conductor's turns get those hooks from :class:`ModelTurnHooks`;
the bookkeeping lives in :class:`ModelCallBook`. Nothing here is hashed: model names,
latencies, token usage and response ids go to the calls log, keyed by the seq the next
event takes, and to :attr:`RunResult.model_calls`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from workbench.contracts.events import TOOL_CALLED, called_payload
from workbench.errors import ToolCallError

__all__ = ["ModelCallBook", "ModelTurnHooks"]


class ModelCallBook:
    """Counts a run's model calls and keeps their records and transcripts.

    Args:
        limit: ``max_model_calls`` (None: no limit).
        spent: Makes the exception that ends the run when the limit is reached.
    """

    def __init__(self, limit: int | None, spent: Callable[[], BaseException]):
        self.limit = limit
        self.count = 0
        #: One record per model call: agent, tick, step, model, latency, usage, source...
        self.records: list[dict[str, Any]] = []
        #: One per model-driven turn: agent, tick and the conversation's messages.
        self.transcripts: list[dict[str, Any]] = []
        #: The cassette of the run's models, closed with the run (set by from_config).
        self.cassette: Any = None
        self._spent = spent
        self._turn: Any = None

    def close(self) -> None:
        """Close the cassette (safe to call twice)."""
        if self.cassette is not None:
            self.cassette.close()

    def start(self) -> None:
        """Count a call about to be made; raise ``spent()`` if the budget is used up."""
        if self.limit is not None and self.count >= self.limit:
            raise self._spent()
        self.count += 1

    def done(self, turn: Any, agent: str, record: dict[str, Any],
             messages: list[dict[str, Any]], calls_log: Any, seq: int) -> None:
        """Keep one call's record (and its turn's transcript); log it when given a log."""
        if turn is not self._turn:  # the first call of a turn opens its transcript
            self._turn = turn
            self.transcripts.append({"agent": agent, "tick": turn.tick, "messages": messages})
        record = {"model_call": self.count, "agent": agent, "tick": turn.tick, **record}
        self.records.append(record)
        if calls_log is not None:
            at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            calls_log.write(seq, {**record, "at": at})


class ModelTurnHooks:
    """What a conductor's turn offers the tool loop.

    Mixed into :class:`~workbench.engine.turn.ConductorTurn`.
    """

    __slots__ = ()
    conductor: Any
    tick: int
    cause: int | None

    def model_call_starting(self) -> None:
        """Before a model call: the governor's ``max_model_calls``."""
        self.conductor.model_book.start()

    def model_call_done(self, agent: Any, record: dict[str, Any],
                        messages: list[dict[str, Any]]) -> None:
        """After a model call: telemetry (not while resuming) and the transcript."""
        conductor = self.conductor
        log = None if conductor.replaying else conductor.calls_log
        conductor.model_book.done(self, agent.name, record, messages, log,
                                  len(conductor.ledger))

    def call_failed(self, agent: Any, tool: str, arguments: str,
                    error: ToolCallError) -> None:
        """Record a call that could not be made (arguments that are not JSON)."""
        self.conductor.append(self.tick, TOOL_CALLED, agent.name, called_payload(
            tool, {}, error=error.to_payload(), arguments=arguments), self.cause)
