"""The contract of one agent in front of any MCP host: ``workbench gateway``.

The gateway is an MCP server a host (Claude Desktop, Cursor, VS Code, the MCP Inspector, an
agent framework) starts like any other. It connects to a scenario's servers and presents
exactly what one agent has in a run: the tools the agent is granted and the scenario's
surface exposes, with the curated text and the servers' own schemas; every call goes
through the run's registry (grant check, curation and pins, approval, schema) and onto a
hash-chained ledger in the run's format. It adds no second implementation of any of these:
a run and a gateway session differ only in who asks.

The pieces, one concept per module:

* :mod:`~workbench.gateway.contract`: the agent's grants over the scenario's registry,
  and what the host is shown;
* :mod:`~workbench.gateway.held`: tools first offered while the gateway runs, held back
  until approved;
* :mod:`~workbench.gateway.calls`: a call through the registry, recorded, as an MCP result;
* :mod:`~workbench.gateway.approval`: ``--approve``, and asking the person through the host;
* :mod:`~workbench.gateway.record`: the ledger and calls log;
* :mod:`~workbench.gateway.server`: the MCP server (stdio, or bounded Streamable HTTP),
  and telling hosts when their list changed;
* :mod:`~workbench.gateway.stdio`: serving stdio with a bound on a request's size;
* :mod:`~workbench.gateway.hosts`: the JSON snippets hosts need (``--print-config``);
* :mod:`~workbench.gateway.running`: :class:`Gateway`, all of it opened in order.

Example:
    >>> from workbench.gateway import Gateway
    >>> with Gateway.open("config", "watch-house", "timekeeper",
    ...                   ledger="gw.jsonl") as gateway:  # doctest: +SKIP
    ...     gateway.contract.names()
    ['get_current_time', 'echo']
"""

from __future__ import annotations

from workbench.gateway.running import Gateway

__all__ = ["Gateway"]
