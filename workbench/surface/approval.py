"""Approval: destructive calls need a yes from someone, and untrusted hints skip nothing.

MCP annotations are *hints* a server gives about its own tools. The rule here:

* a tool is destructive unless its ``readOnlyHint`` is true;
* a hint counts only when the server is trusted (tools registered in-process, or a server
  marked ``trusted``); an untrusted server's ``readOnlyHint: true`` is ignored, so its
  every call is confirmed. A surface's coded tool runs in-process but its hints come from
  tools.json, so it counts as untrusted unless the scenario says ``trusted_code: true``;
* :class:`ApprovalPolicy` approves a tool *on one server*: ``--approve TOOL`` binds TOOL to
  the server of the first call it approves, and ``--approve SERVER:TOOL`` names it
  outright; the same name offered later by another server is asked about again, never
  carried over;
* a call that needs confirmation goes to an *approver*, a callback
  ``approver(ApprovalRequest) -> bool``: a prompt on the CLI (:func:`prompt_approver`), a
  widget in a notebook, a policy in tests (:class:`ApprovalPolicy`). ``False`` refuses
  the call with :class:`~workbench.errors.ToolDenied` reason ``not approved``, which the
  conductor records as ``tool.denied``.

:class:`ApprovalGuard` is a guard for ``ToolRegistry.add_guard``: it runs after the grant
check and before anything is dispatched.

Example:
    >>> from workbench.tools.registry import ToolRegistry
    >>> reg = ToolRegistry()
    >>> _ = reg.register("wipe", "Erase everything.", lambda: {"wiped": True})
    >>> reg.add_guard(ApprovalGuard(ApprovalPolicy(allow=())))
    >>> class Grants:
    ...     tools = ["wipe"]
    >>> try:
    ...     reg.call("janitor", Grants(), "wipe", {})
    ... except Exception as exc:
    ...     print(exc.reason)
    not approved
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from workbench.errors import ToolDenied, WorkbenchError
from workbench.tools.registry import ToolSpec

__all__ = [
    "ApprovalGuard",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "is_destructive",
    "prompt_approver",
    "unapproved_tools",
]


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver is asked.

    Attributes:
        agent: Who wants to call.
        tool: The tool.
        params: The arguments, exactly as they would be sent.
        server: The server that offers it (``in-process`` for our own tools).
        trusted: Whether that server's hints are believed.
        why: Why confirmation is needed, in words for a person.
        spec: The tool as described (its annotations are hints).
    """

    agent: str
    tool: str
    params: Mapping[str, Any]
    server: str
    trusted: bool
    why: str
    spec: ToolSpec | None = field(default=None, repr=False)


#: ``approver(request) -> True`` to let the call through.
Approver = Callable[[ApprovalRequest], bool]


def unapproved_tools(denied: Iterable[Any]) -> dict[str, int]:
    """How many of a run's ``tool.denied`` events were refused as ``not approved``, by tool.

    What a person approves next (``--approve TOOL``, the runner's *Approve* field), sorted
    by tool; empty when nothing waited for a yes.
    """
    counts: dict[str, int] = {}
    for event in denied:
        if event.payload.get("reason") == "not approved":
            tool = str(event.payload.get("tool"))
            counts[tool] = counts.get(tool, 0) + 1
    return dict(sorted(counts.items()))


def is_destructive(spec: ToolSpec) -> bool:
    """True unless the tool's annotations say ``readOnlyHint: true``."""
    return (spec.annotations or {}).get("readOnlyHint") is not True


class ApprovalGuard:
    """Ask ``approver`` before any call whose safety rests on untrusted or absent hints.

    Args:
        approver: The callback that says yes or no.
        trusted_servers: Names of servers whose hints are believed.
        server_of: ``server_of(tool) -> server name`` (default: the registry's resolver's
            ``connection_for(tool).name`` when the guard is installed with
            :meth:`install`, else ``"server"``). A connection with ``trusted=True`` counts
            as trusted too.
    """

    def __init__(self, approver: Approver, *, trusted_servers: Iterable[str] = (),
                 server_of: Callable[[str], str] | None = None):
        self.approver = approver
        self.trusted_servers = frozenset(trusted_servers)
        self.server_of = server_of
        self._registry: Any = None

    def install(self, registry: Any) -> ApprovalGuard:
        """Add this guard to ``registry`` and read trust from its resolver; returns ``self``."""
        self._registry = registry
        registry.add_guard(self)
        return self

    def needs_approval(self, spec: ToolSpec) -> tuple[str, bool, str | None]:
        """``(server, trusted, why)``; ``why`` is None when the call may go ahead unasked."""
        server, trusted = self._origin(spec)
        if not is_destructive(spec):
            if trusted:
                return server, trusted, None
            return server, trusted, (f"{server} says {spec.name!r} is read-only, but it is not "
                                     f"trusted, so its hints are not believed")
        hints = "no readOnlyHint" if spec.annotations is None or "readOnlyHint" not in \
            spec.annotations else "readOnlyHint is false"
        return server, trusted, f"{spec.name!r} may change things ({hints})"

    def __call__(self, agent: str, spec: ToolSpec, params: Mapping[str, Any]) -> None:
        """The guard: return to let the call through, raise ToolDenied to refuse it."""
        server, trusted, why = self.needs_approval(spec)
        if why is None:
            return
        request = ApprovalRequest(agent, spec.name, dict(params), server, trusted, why, spec)
        if not self.approver(request):
            raise ToolDenied(agent, spec.name, "not approved",
                             f"{why}; the approver said no. Approve it to let it run.")

    def _origin(self, spec: ToolSpec) -> tuple[str, bool]:
        name = spec.name
        registry = self._registry
        if registry is None and spec.run is not None:
            return "in-process", True  # a bare guard only ever sees registered tools
        if registry is not None and name in registry.local_names():
            return "in-process", True  # registered in-process: our own code, our hints
        server, conn = "server", None
        resolver = getattr(self._registry, "resolver", None)
        finder = getattr(resolver, "connection_for", None)
        if finder is not None:
            try:
                conn = finder(name)
                server = str(getattr(conn, "name", server))
            except (WorkbenchError, KeyError, AttributeError):
                conn = None
        if self.server_of is not None:
            server = self.server_of(name)
        trusted = server in self.trusted_servers or bool(getattr(conn, "trusted", False))
        return server, trusted


class ApprovalPolicy:
    """An approver from rules: a fixed allow list (what a test or CI uses).

    An entry is ``TOOL`` or ``SERVER:TOOL`` (tool names never hold ``:``). ``TOOL`` is bound
    to the server of the first request it approves: the same name from another server later
    (a second server taking the tool over) is refused, never carried across.

    Args:
        allow: Tools approved every time (``"*"`` approves everything, on any server).
        deny: Tools always refused (wins over ``allow``), also as ``SERVER:TOOL``.

    Attributes:
        asked: Every request seen, in order (to show who was asked what).
        refused: The requests it said no to, in order (what a person may want to approve).
        bound: ``{tool: server}`` for bare ``TOOL`` entries that approved a call.
    """

    def __init__(self, allow: Iterable[str] = (), deny: Iterable[str] = ()):
        self.allow = frozenset(allow)
        self.deny = frozenset(deny)
        self.asked: list[ApprovalRequest] = []
        self.refused: list[ApprovalRequest] = []
        self.bound: dict[str, str] = {}

    def __call__(self, request: ApprovalRequest) -> bool:
        """Approve when the tool is allowed on this server and not denied."""
        self.asked.append(request)
        approved = self._approves(request)
        if not approved:
            self.refused.append(request)
        return approved

    def _approves(self, request: ApprovalRequest) -> bool:
        tool, server = request.tool, request.server
        if tool in self.deny or f"{server}:{tool}" in self.deny:
            return False
        if "*" in self.allow or f"{server}:{tool}" in self.allow:
            return True
        if tool not in self.allow:
            return False
        first = self.bound.setdefault(tool, server)
        return first == server


def prompt_approver(stdin: TextIO | None = None, stdout: TextIO | None = None) -> Approver:
    """An approver that asks a person on the terminal (``y`` approves; anything else refuses).

    Without an interactive terminal every request is refused: nothing destructive runs
    unattended.
    """

    def ask(request: ApprovalRequest) -> bool:
        from workbench.textsafe import escape

        inp = stdin or sys.stdin
        out = stdout or sys.stderr
        # No stdin at all (a daemon, CI with stdin closed) is "no terminal" too.
        if stdin is None and (inp is None or not inp.isatty()):
            print(f"refused {escape(repr(request.tool))} for {escape(request.agent)}: "
                  f"{escape(request.why)} (no terminal to ask)", file=out)
            return False
        from workbench.contracts.canonical import canonical_json

        # Names, arguments and reasons may carry a server's or a model's text: escaped, so
        # the question a person answers is the one really asked.
        out.write(f"{escape(request.agent)} wants to call {escape(request.tool)}"
                  f"({escape(canonical_json(dict(request.params)))}) on "
                  f"{escape(request.server)}.\n  {escape(request.why)}.\n  Allow? [y/N] ")
        out.flush()
        answer = inp.readline().strip().lower()
        return answer in ("y", "yes")

    return ask
