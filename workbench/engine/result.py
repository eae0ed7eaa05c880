"""What a run produced: the ledger, why the run ended, and what was measured on the way.

:meth:`~workbench.engine.conductor.Conductor.run` returns a :class:`RunResult`. The ledger
is what is hashed and compared; telemetry, model calls and transcripts ride along for
frames, widgets and reports and are never hashed. ``RunResult`` is re-exported from
:mod:`workbench.engine.conductor`.

Example:
    >>> from workbench.engine.conductor import Conductor
    >>> result = Conductor.from_config("config", "oracle-grove").run(ticks=2)  # doctest: +SKIP
    >>> result  # doctest: +SKIP
    RunResult('oracle-grove:7', reason='ticks', ticks=2, events=..., final_hash='...')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.contracts.events import TOOL_DENIED, Event
from workbench.engine.ledger import Ledger

__all__ = ["RunResult"]


@dataclass
class RunResult:
    """What a run produced.

    Attributes:
        ledger: Every event, hash-chained.
        reason: Why the run ended: ``ticks``, ``budget`` or ``stop``.
        ticks: Ticks completed.
        telemetry: Per tool call, keyed by the ``tool.called``/``tool.denied`` seq:
            tool, transport and latency. Never hashed.
        model_calls, transcripts: Per model call and per model-driven turn (see
            :mod:`~workbench.engine.model_calls`). Never hashed.
    """

    ledger: Ledger
    reason: str
    ticks: int
    telemetry: dict[int, dict[str, Any]] = field(default_factory=dict)
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    transcripts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def final_hash(self) -> str:
        """The ledger's last hash: equal hashes mean equal runs."""
        return self.ledger.final_hash

    @property
    def violations(self) -> list[Event]:
        """Every ``tool.denied`` event."""
        return self.ledger.of_kind(TOOL_DENIED)

    def __repr__(self) -> str:
        # Not the dataclass repr: the telemetry of a long run is megabytes of text.
        return (f"RunResult({self.ledger.run_id!r}, reason={self.reason!r}, ticks={self.ticks}, "
                f"events={len(self.ledger)}, final_hash={self.final_hash[:12]!r})")

    def _repr_html_(self) -> str:
        from workbench.reprs import run_html

        return run_html(self)
