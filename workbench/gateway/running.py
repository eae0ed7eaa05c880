"""A gateway opened and served: the ledger first, then the servers, then the host.

:meth:`Gateway.open` wires the parts up in the order a run does (:mod:`workbench.engine.
factory`): the ledger file is claimed first (a second writer fails before any server
starts), then the scenario's servers are started behind its registry
(:class:`~workbench.gateway.contract.Contract`), then ``gateway.started`` is recorded with
what the host will be shown. :meth:`Gateway.serve_stdio` and :meth:`Gateway.serve_http`
serve until the host goes away or the person stops it; :meth:`Gateway.close` records
``gateway.stopped`` and stops the servers. What was opened is closed again if opening fails.

Example:
    >>> gateway = Gateway.open("config", "watch-house", "timekeeper",
    ...                        ledger="gw.jsonl", approve=["echo"])  # doctest: +SKIP
    >>> gateway.calls.call("echo", {"message": "hi"}).outcome  # doctest: +SKIP
    'ok'
    >>> gateway.close("done")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.contracts.config import ConfigTree
from workbench.gateway.approval import GatewayApprover
from workbench.gateway.calls import GatewayCalls
from workbench.gateway.contract import Contract, agent_of
from workbench.gateway.record import GatewayRecord, default_ledger_path
from workbench.gateway.server import GatewayServer

__all__ = ["Gateway"]


class Gateway:
    """One agent's contract, served to a host and recorded.

    Attributes:
        contract: The agent's grants over the scenario's registry.
        record: The ledger and calls log.
        calls: The call path.
        server: The MCP server (built when served).
    """

    def __init__(self, contract: Contract, record: GatewayRecord, calls: GatewayCalls,
                 server: GatewayServer):
        self.contract = contract
        self.record = record
        self.calls = calls
        self.server = server
        self._closed = False

    @classmethod
    def open(cls, config: str | Path | ConfigTree, scenario: str, agent: str, *,
             ledger: str | Path | None = None, approve: Iterable[str] = (),
             overwrite: bool = False, approval_wait: float | None = None,
             note: Callable[[str], None] | None = None) -> Gateway:
        """Claim the ledger, start the scenario's servers, record ``gateway.started``.

        Args:
            config: The config directory (or a loaded tree).
            scenario: The scenario's name.
            agent: The agent of its cast whose contract is served.
            ledger: The ledger file (:func:`~workbench.gateway.record.default_ledger_path`
                when None).
            approve: ``--approve`` entries.
            overwrite: Replace an existing ledger file.
            approval_wait: Seconds a person has to answer (the setting's when None).
            note: Where the gateway's lines for a person go (stderr when None).

        Raises:
            ConfigError: no such scenario, or the agent is not in its cast.
            LedgerError: the ledger file exists or is being written.
            ToolCallError: a server could not be started.
        """
        tree = config if isinstance(config, ConfigTree) else ConfigTree.load(config)
        spec = tree.scenario(scenario)
        agent_of(tree, spec, agent)  # before the ledger: a typo leaves no file behind
        path = Path(ledger) if ledger is not None else default_ledger_path(spec.name, agent)
        record = GatewayRecord(path, scenario=spec.name, agent=agent, overwrite=overwrite)
        try:
            approver = GatewayApprover(approve)
            contract = Contract.open(tree, spec.name, agent, approver=approver)
        except BaseException:
            record.discard()
            raise
        calls = GatewayCalls(contract, record, approver)
        if note is not None:
            calls.note = note  # type: ignore[method-assign]
        try:
            contract.relist()
            record.started({"scenario": spec.name, "agent": agent,
                            "tools": contract.names(), "servers": contract.server_names()})
        except BaseException:
            contract.close()
            record.close()
            raise
        return cls(contract, record, calls, GatewayServer(calls, approval_wait=approval_wait))

    def describe(self, serving: str) -> str:
        """What the gateway tells the person at start (one line)."""
        contract = self.contract
        shown = ", ".join(contract.names()) or "no tools"
        servers = ", ".join(contract.server_names()) or "in-process tools"
        surface = contract.scenario.surface
        pins = "" if surface is not None or not contract.scenario.servers else (
            "; the scenario has no surface, so no tool is pinned")
        return (f"scenario {contract.scenario.name}, agent {contract.manifest.name}: shows "
                f"{len(contract.names())} tools ({shown}) from {servers}{pins}; {serving}")

    def serve_stdio(self) -> str:
        """Serve the host on stdin and stdout until it closes them; returns why it ended."""
        self.server.serve_stdio()
        return "the host closed the connection"

    def serve_http(self, port: int, host: str = "127.0.0.1", *, bounds: Any = None,
                   bound: Callable[[str], None] | None = None) -> str:
        """Serve Streamable HTTP at ``http://HOST:PORT/mcp`` until stopped; returns why."""
        self.server.serve_http(port, host, bounds=bounds, bound=bound)
        return "stopped"

    def close(self, reason: str = "closed") -> None:
        """Record ``gateway.stopped`` with ``reason`` and stop the servers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.record.stopped(reason)
        finally:
            self.contract.close()

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Gateway {self.contract!r}, ledger {str(self.record.path)!r}>"
