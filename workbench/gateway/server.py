"""The gateway as an MCP server: the SDK's low-level ``Server`` over stdio or bounded HTTP.

:class:`GatewayServer` answers a host with the contract (:mod:`workbench.gateway.contract`)
and sends every call down the gateway's call path (:mod:`workbench.gateway.calls`):

* ``tools/list`` returns the wire form of what the agent is shown, each tool's schemas and
  annotations exactly as its server sent them (the low-level server, so nothing is
  re-derived from a Python signature);
* ``tools/call`` runs the call in a worker thread (the registry is synchronous; the calls
  in flight at once are capped) and answers with its result or an ``isError`` result;
* approval is asked through the host when it declared elicitation
  (:mod:`workbench.gateway.approval`): an ``elicitation/create`` request on a 2025-11-25
  session, an ``input_required`` result on a 2026-07-28 one;
* a watcher looks at the servers' listings and the surface's ``pins.json`` every
  :data:`LIST_POLL` seconds; when what the host sees changes, every host is told
  ``notifications/tools/list_changed`` (2025-11-25 sessions on their stream, 2026-07-28
  hosts on their ``subscriptions/listen`` stream).

Over HTTP it is served by :func:`workbench.tools.mcp.http_server.serve_http`, with its
bounds (header and body time, request size, sessions, connections) and the SDK's
``Origin``/``Host`` checks on loopback.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

from workbench.gateway.approval import (
    REQUESTED_SCHEMA,
    Answer,
    NeedsAnswer,
    PendingApprovals,
    answer_of,
    approval_timeout,
    question,
)
from workbench.gateway.calls import GatewayCalls, call_result
from workbench.surface.approval import ApprovalRequest

__all__ = ["LIST_POLL", "MAX_HOSTS", "MAX_IN_FLIGHT", "SERVER_NAME", "GatewayServer"]

#: The name the gateway gives in its handshake.
SERVER_NAME = "workbench-gateway"
#: Seconds between two looks at the servers' listings and ``pins.json``: a change reaches
#: the host within a fraction of a second, and a look costs a stat and a few comparisons.
LIST_POLL = 0.25
#: Calls running at once (each holds a worker thread while its server answers); more wait
#: their turn. A host has a handful in flight; this keeps a burst from taking every thread.
MAX_IN_FLIGHT = 32
#: 2025-11-25 host sessions remembered to tell of list changes (the latest are kept): one
#: per host, and HTTP serving caps live sessions at 64 by default.
MAX_HOSTS = 64
#: ``subscriptions/listen`` streams open at once (2026-07-28 hosts hold one each).
MAX_LISTENERS = 64
#: Seconds a host is given to take a list-change notification before it is skipped.
NOTIFY_TIMEOUT = 5.0


class GatewayServer:
    """The MCP face of the gateway.

    Args:
        calls: The gateway's call path (contract, ledger, approver).
        approval_wait: Seconds a person has to answer (``WORKBENCH_GATEWAY_APPROVAL_TIMEOUT``
            when None).
    """

    def __init__(self, calls: GatewayCalls, *, approval_wait: float | None = None):
        self.calls = calls
        self.approval_wait = approval_timeout() if approval_wait is None else approval_wait
        self.pending = PendingApprovals(self.approval_wait)
        self._hosts: collections.OrderedDict[Any, Any] = collections.OrderedDict()
        self._tools: tuple[Any, Any] | None = None
        self._schemas: tuple[Any, dict[str, Any]] | None = None
        self._bus: Any = None
        self._limiter: Any = None
        self._server: Any = None
        # The protocol version the stdio host's handshake settled (None until the SDK has
        # answered one of its requests): a call without the 2026-07-28 envelope speaks it.
        self._legacy_version: str | None = None

    # -- the SDK server -------------------------------------------------------------------
    def build(self) -> Any:
        """A low-level ``mcp.server.lowlevel.Server`` serving the contract."""
        from mcp.server.lowlevel.server import NotificationOptions, Server
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        class _Server(Server):
            # The HTTP session manager asks for the options with no arguments: tools do
            # change, on every transport.
            def create_initialization_options(self, notification_options: Any = None,
                                              *args: Any, **kwargs: Any) -> Any:
                options = notification_options or NotificationOptions(tools_changed=True)
                return super().create_initialization_options(options, *args, **kwargs)

        self._bus = InMemorySubscriptionBus()
        contract = self.calls.contract
        self._server = _Server(
            SERVER_NAME, version=_version(),
            instructions=(f"The tools agent {contract.manifest.name!r} is granted in scenario "
                          f"{contract.scenario.name!r}, as its workbench run presents them; "
                          f"every call is checked and recorded."),
            lifespan=self._lifespan, on_list_tools=self._list_tools,
            on_call_tool=self._call_tool, get_tool_input_schema=self._input_schema,
            on_subscriptions_listen=ListenHandler(self._bus, max_subscriptions=MAX_LISTENERS),
        )
        return self._server

    @contextlib.asynccontextmanager
    async def _lifespan(self, _server: Any) -> AsyncIterator[dict[str, Any]]:
        import anyio

        self._limiter = anyio.CapacityLimiter(MAX_IN_FLIGHT)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._watch)
            try:
                yield {}
            finally:
                tasks.cancel_scope.cancel()

    async def _list_tools(self, ctx: Any, _params: Any) -> Any:
        import mcp_types as types

        self._remember(ctx)
        wire = self.calls.contract.wire()
        cached = self._tools
        if cached is None or cached[0] is not wire:
            model = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in wire])
            self._tools = cached = (wire, model)
        return cached[1]

    def _input_schema(self, name: str) -> Any:
        # The SDK checks a 2026-07-28 HTTP call's Mcp-Param-* headers against the tool's
        # schema; without this lookup it would run the whole tools/list for every call.
        wire = self.calls.contract.wire()
        cached = self._schemas
        if cached is None or cached[0] is not wire:
            self._schemas = cached = (wire, {t["name"]: t.get("inputSchema") for t in wire})
        return cached[1].get(name)

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        import anyio
        import mcp_types as types

        self._remember(ctx)
        tool, args = params.name, dict(params.arguments or {})
        try:
            # On this loop first: a call that needs nobody's answer is awaited here.
            outcome = await self.calls.acall(tool, args, _ask_elsewhere)
        except NeedsAnswer:
            # It needs a person: asking blocks, so the call runs in a worker thread.
            ask = self._asker(ctx, tool, args, params)
            try:
                outcome = await anyio.to_thread.run_sync(self.calls.call, tool, args, ask,
                                                         limiter=self._limiter)
            except NeedsAnswer as needs:
                return types.InputRequiredResult.model_validate(
                    self.pending.ask(needs.request))
        return types.CallToolResult.model_validate(call_result(outcome))

    async def fast_call(self, request: dict[str, Any]) -> bytes | None:
        """Answer a host's ``tools/call`` on the serving loop, or decline it (None).

        The call takes the same path as :meth:`_call_tool` (:meth:`GatewayCalls.acall`: the
        registry's checks, the ledger) and its result is shaped for the wire as the SDK's
        server shapes it, so a host cannot tell the two apart; only the SDK's request
        machinery and the worker thread are left out. Declined, for the SDK's server to
        answer: anything but a plain call (a retry carrying an answer, a task), a request
        whose shape or envelope the SDK would refuse, a legacy call before the handshake's
        version is known, and a call that needs a person's answer.
        """
        from mcp.shared.inbound import InboundModernRoute, classify_inbound_request
        from mcp_types import PROTOCOL_VERSION_META_KEY

        params, mid = request.get("params"), request.get("id")
        if not isinstance(params, dict) or not _FAST_PARAMS.issuperset(params) or \
                type(mid) not in (str, int):
            return None
        name, args = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (args is None or isinstance(args, dict)):
            return None
        meta = params.get("_meta")
        if isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta:
            route = classify_inbound_request(request)
            if not isinstance(route, InboundModernRoute):
                return None
            version = route.protocol_version
        elif (version := self._legacy_version) is None:
            return None
        try:
            outcome = await self.calls.acall(name, args, _ask_elsewhere)
        except NeedsAnswer:
            return None
        result = self.wire_result(version, call_result(outcome))
        return (json.dumps({"jsonrpc": "2.0", "id": mid, "result": result},
                           ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")

    def wire_result(self, version: str, result: dict[str, Any]) -> dict[str, Any]:
        """A ``tools/call`` result as the SDK's server puts it on the wire for ``version``.

        The version's result surface (fields it does not know dropped), and on a 2026-07-28
        call the ``resultType`` and the ``serverInfo`` stamp (``ServerRunner._serialize``).
        """
        from mcp_types import SERVER_INFO_META_KEY
        from mcp_types.methods import serialize_server_result
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        modern = version in MODERN_PROTOCOL_VERSIONS
        # The model :meth:`_call_tool` returns carries resultType "complete" (which the
        # 2026-07-28 surface requires and the older ones drop).
        dumped = serialize_server_result("tools/call", version, {**result, "resultType":
                                                                 "complete"})
        if modern:
            meta = dumped.get("_meta")
            if meta is None or (isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None):
                dumped["_meta"] = {**(meta or {}),
                                   SERVER_INFO_META_KEY: self._server.server_info_stamp}
        return dumped

    # -- asking the person ----------------------------------------------------------------
    def _asker(self, ctx: Any, tool: str, args: dict[str, Any], params: Any
               ) -> Callable[[ApprovalRequest], Answer] | None:
        if not _can_elicit(ctx):
            return None
        if _modern(ctx):
            answer = self.pending.answer(tool, args, getattr(params, "request_state", None),
                                         getattr(params, "input_responses", None))

            def from_retry(request: ApprovalRequest) -> Answer:
                if answer is None:
                    raise NeedsAnswer(request)
                return answer

            return from_retry
        session, request_id, wait = ctx.session, ctx.request_id, self.approval_wait

        async def elicit(request: ApprovalRequest) -> Answer:
            import anyio

            try:
                with anyio.fail_after(wait):
                    result = await session.elicit_form(question(request), REQUESTED_SCHEMA,
                                                       related_request_id=request_id)
            except TimeoutError:
                return Answer(False, "no answer", f"nobody answered within {wait:g} s")
            except anyio.get_cancelled_exc_class():
                # The host gave up on the call (or the gateway is stopping) while its person
                # was asked: a no, so the refusal is recorded; the call's own task is still
                # cancelled at its next await, and nothing is answered.
                return Answer(False, "no answer", "the call was cancelled before the person "
                                                  "answered")
            except Exception as exc:  # the host failed to ask: a no, never a crash
                return Answer(False, "no answer", f"the host could not ask: "
                                                  f"{type(exc).__name__}: {exc}")
            return answer_of(result)

        def ask(request: ApprovalRequest) -> Answer:
            import anyio.from_thread

            return anyio.from_thread.run(elicit, request)

        return ask

    # -- telling hosts the list changed ---------------------------------------------------
    def _remember(self, ctx: Any) -> None:
        """Keep a 2025-11-25 host's session, to tell it of list changes later."""
        if _modern(ctx):
            return
        self._legacy_version = ctx.protocol_version
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        key = headers.get("mcp-session-id") if headers is not None else None
        key = key or "stdio"
        self._hosts[key] = ctx.session
        self._hosts.move_to_end(key)
        while len(self._hosts) > MAX_HOSTS:
            self._hosts.popitem(last=False)

    async def _watch(self) -> None:
        """Every :data:`LIST_POLL` s: if a listing or ``pins.json`` moved, relist and tell."""
        import anyio

        seen = self._stamp()
        while True:
            await anyio.sleep(LIST_POLL)
            now = self._stamp()
            if now == seen:
                continue
            seen = now
            try:
                changed = await anyio.to_thread.run_sync(self.calls.relist)
            except Exception as exc:  # a broken listing must not end the watcher
                self.calls.note(f"could not relist after a change: {type(exc).__name__}: "
                                f"{exc}")
                continue
            if changed:
                await self.tell_hosts()

    def _stamp(self) -> tuple[Any, ...]:
        contract = self.calls.contract
        versions = tuple(conn.tools_version for conn in contract.connections)
        held = contract.held
        pins = None
        if held is not None and held.surface is not None:
            try:
                info = os.stat(held.surface / "pins.json")
                pins = (info.st_mtime_ns, info.st_size)
            except OSError:
                pins = None
        return versions, pins

    async def tell_hosts(self) -> None:
        """Send ``notifications/tools/list_changed`` to every host that may listen."""
        import anyio
        from mcp.server.subscriptions import ToolsListChanged

        if self._bus is not None:
            await self._bus.publish(ToolsListChanged())
        for session in list(self._hosts.values()):
            with anyio.move_on_after(NOTIFY_TIMEOUT), contextlib.suppress(Exception):
                await session.send_tool_list_changed()

    # -- serving --------------------------------------------------------------------------
    def serve_stdio(self) -> None:
        """Serve the host on this process's stdin and stdout until it closes them.

        On the first server's session loop when there is one (:meth:`_session_loop`).
        """
        import anyio

        from workbench.gateway.stdio import bounded_stdio
        from workbench.tools.mcp.loop import run_on

        async def main() -> None:
            server = self.build()
            async with bounded_stdio(fast=self.fast_call, in_flight=MAX_IN_FLIGHT) as (
                    read, write):
                await server.run(read, write, server.create_initialization_options())

        loop = self._session_loop()
        if loop is None:
            anyio.run(main)
        else:
            run_on(loop, main())  # signals taken at once: nothing loads before

    def serve_http(self, port: int, host: str = "127.0.0.1", *, bounds: Any = None,
                   bound: Callable[[str], None] | None = None) -> None:
        """Serve Streamable HTTP at ``http://HOST:PORT/mcp`` until stopped (Ctrl+C).

        Raises:
            WorkbenchError: the port cannot be bound.
        """
        from workbench.tools.mcp.http_server import serve_http

        serve_http(self.build(), port=port, host=host, bounds=bounds, bound=bound,
                   loop=self._session_loop())

    def _session_loop(self) -> Any:
        """The event loop of the first server's session (None: no server, or not started).

        The gateway serves on it: a call to that server is awaited where its session lives,
        with no hop between threads (each hop costs more than the gateway's own work).
        """
        return next((conn.loop for conn in self.calls.contract.connections
                     if conn.loop is not None and conn.loop.is_running()), None)


#: The params of a call :meth:`GatewayServer.fast_call` answers itself (anything else, such
#: as an answer's ``requestState`` or a ``task``, goes to the SDK's server).
_FAST_PARAMS = frozenset({"name", "arguments", "_meta"})


def _ask_elsewhere(request: ApprovalRequest) -> Answer:
    """The loop's asker: a call that needs a person goes the SDK's way, which can ask."""
    raise NeedsAnswer(request)


def _modern(ctx: Any) -> bool:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _can_elicit(ctx: Any) -> bool:
    """Whether the host declared form elicitation (an empty declaration means form)."""
    caps = ctx.session.client_capabilities
    elicitation = getattr(caps, "elicitation", None)
    if elicitation is None:
        return False
    return getattr(elicitation, "form", None) is not None or \
        getattr(elicitation, "url", None) is None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tool-contract-workbench")
    except PackageNotFoundError:
        return "0"
