"""The engine: the conductor that runs scenarios and the ledger that records them."""

from workbench.engine.conductor import Conductor, RunResult
from workbench.engine.ledger import JsonlLedgerStore, Ledger, LedgerFile

__all__ = ["Conductor", "JsonlLedgerStore", "Ledger", "LedgerFile", "RunResult"]
