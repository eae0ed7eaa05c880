"""The intent log: a call's intent is on disk before the call is sent (a write-ahead log).

A tool that may change things (anything but an in-process tool that says it is read-only)
must never be called twice because a run was killed and resumed. So, before such a call
is dispatched, the conductor flushes the ledger and appends an *intent* beside it, in
``<ledger>.intents.jsonl``, and fsyncs it::

    {"agent": "clerk", "params": "9f2c...", "seq": 7, "tick": 2, "tool": "send_email"}

``seq`` is where the call's outcome will go on the ledger and ``params`` the sha256 of the
params' canonical JSON. After the call the outcome is appended and flushed. Resuming, an
intent whose ``seq`` the ledger already holds is done; an intent at the ledger's end is a
call that was in flight at the kill: it may or may not have run, so it is recorded as
``interrupted`` (never re-sent unless asked: ``workbench resume --retry-interrupted``).

The log is not hashed and holds nothing the ledger needs to verify: the ledger's content
stays deterministic. It is only written while the ledger's lock is held.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from workbench.contracts.canonical import canonical_bytes
from workbench.errors import LedgerError

__all__ = ["Intent", "IntentLog", "intents_path", "may_change_things", "params_digest"]


def intents_path(ledger_path: str | Path) -> Path:
    """Where the intent log of ``ledger_path`` lives (``run.jsonl`` -> ``run.intents.jsonl``)."""
    path = Path(ledger_path)
    return path.with_name(f"{path.stem}.intents.jsonl")


def may_change_things(registry: Any, tool: str) -> bool:
    """Whether a call of ``tool`` needs an intent: all but in-process read-only tools.

    Only an in-process tool's ``readOnlyHint`` is believed (we wrote it); whatever a server
    says, a call over MCP may have a side effect.
    """
    if registry.transport_of(tool) != "in-process":
        return True
    annotations = registry.spec(tool).annotations or {}
    return annotations.get("readOnlyHint") is not True


def params_digest(params: Any) -> str:
    """sha256 hex of the params' canonical JSON (what an intent records of them)."""
    return hashlib.sha256(canonical_bytes(params)).hexdigest()


@dataclass(frozen=True)
class Intent:
    """A call about to be sent.

    Attributes:
        seq: Where its outcome goes on the ledger.
        tick: The tick of the call.
        agent: Who calls.
        tool: What is called.
        params: :func:`params_digest` of the params.
    """

    seq: int
    tick: int
    agent: str
    tool: str
    params: str

    def matches(self, agent: str, tool: str, params: Any) -> bool:
        """Whether a call re-derived on resume is this one."""
        return (self.agent, self.tool, self.params) == (agent, tool, params_digest(params))


class IntentLog:
    """Appends intents, each fsynced before its call is sent.

    Args:
        path: The intent log file.
        fresh: Start it empty (a new run); otherwise keep what is there (a resume).
    """

    def __init__(self, path: str | Path, fresh: bool = True):
        self.path = Path(path)
        self._fh: IO[str] | None = open(self.path, "w" if fresh else "a",  # noqa: SIM115
                                        encoding="utf-8")

    def write(self, intent: Intent) -> None:
        """Append ``intent`` and make it durable (flush + fsync) before returning."""
        if self._fh is None:
            raise LedgerError(f"{self.path} is closed")
        record = {"agent": intent.agent, "params": intent.params, "seq": intent.seq,
                  "tick": intent.tick, "tool": intent.tool}
        self._fh.write(json.dumps(record, sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Close the file (safe to call twice)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    @staticmethod
    def pending(path: str | Path, recorded: int, ledger: object = "the ledger"
                ) -> Intent | None:
        """The call in flight when a run with ``recorded`` complete events was killed.

        Returns:
            The intent at seq ``recorded`` (its outcome never reached the ledger), or
            None when every intent's outcome is recorded (or there is no log).

        Raises:
            LedgerError: an intent lies beyond the ledger's end: events the ledger had
                when the call was sent are missing, so resuming could repeat calls.
        """
        path = Path(path)
        if not path.exists():
            return None
        found: Intent | None = None
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            if not line.endswith("\n"):
                break  # torn by the kill: that call was never sent
            try:
                d = json.loads(line)
                intent = Intent(int(d["seq"]), int(d["tick"]), str(d["agent"]),
                                str(d["tool"]), str(d["params"]))
            except (ValueError, KeyError, TypeError):
                raise LedgerError(f"{path}: not an intent log line: {line.strip()[:80]!r}; "
                                  f"remove the file only if no call was in flight") from None
            if intent.seq > recorded:
                raise LedgerError(
                    f"{path}: a call was sent at seq {intent.seq}, but {ledger} has only "
                    f"{recorded} events: events were lost after they were written (the "
                    f"file was cut or the machine crashed), so resuming could repeat calls")
            if intent.seq == recorded:
                found = intent
        return found
