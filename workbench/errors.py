"""Every error the workbench raises, in one tree.

Callers catch :class:`WorkbenchError` at the edge (the CLI, the widgets) and show its
message, which always says what happened and what to do next::

    WorkbenchError
     ├── ConfigError              a config file is wrong (names file, key path, what is allowed)
     ├── ToolNameError            a tool name breaks the MCP rule (also ValueError)
     ├── ToolNotFound             granted but registered nowhere (also KeyError)
     ├── ToolDenied               the registry refused a call before any transport was touched
     │    ├── CapabilityViolation the agent was not granted the tool
     │    ├── AmbiguousTool       a server lists two definitions under one name (tools.mcp)
     │    ├── HiddenByCuration    the surface hides the tool (surface.overlay)
     │    ├── PinDrift            the tool's definition or server changed since it was pinned
     │    │    └── PinGone        a pinned tool no server offers now
     │    ├── HeldTool            first offered after a gateway started: held back until it
     │    │                       is pinned (gateway.held; reason pin drift; also ToolNotFound)
     │    └── ReplayedDenial      a refusal re-derived from a resumed run's ledger
     ├── ToolCallError            the call was made and failed: kind is tool_error, protocol_error,
     │    │                       transport_error, timeout (or interrupted, by a resume)
     │    └── ReplayedFailure     a failure re-derived from a resumed run's ledger
     ├── LedgerError              a ledger file cannot be trusted
     │    ├── LedgerTampered      the hash chain does not verify
     │    └── Diverged            a resumed run no longer re-derives what its ledger recorded
     ├── PolicyRefused            a curation edit is not allowed by the surface's policy
     ├── ExportError              an export cannot be written (unknown format, a path that is a
     │                            directory or lies under a missing one); nothing is written
     ├── FormError                a tool-call form's fields cannot give the values asked for
     ├── ModelError               a model backend failed: kind is model_error, timeout,
     │    │                       connection_error or refusal (recorded on agent.failed)
     │    └── CassetteMiss        replaying, a request the cassette does not hold (ends the run)
     ├── SweepError               a sweep cannot run (a grid past its cap, a busy output, Dask)
     ├── CannotRun                a contract test's run cannot be made (testing.runner)
     ├── UnknownRule              no audit rule has the id asked for (also LookupError)
     └── MissingDependency        an optional extra is not installed (also ImportError)

Classes defined beside the code that raises them are named with their module. A private
subclass (``_TooTangled``) never leaves its module.

The reason on a :class:`ToolDenied` is written for the agent and the ledger; anything only
an operator should see (a server's stderr, a stack trace) goes to logs, not into messages.
"""

from __future__ import annotations

__all__ = [
    "CapabilityViolation",
    "CassetteMiss",
    "ConfigError",
    "ExportError",
    "FormError",
    "LedgerError",
    "LedgerTampered",
    "MissingDependency",
    "ModelError",
    "PolicyRefused",
    "SweepError",
    "ToolCallError",
    "ToolDenied",
    "ToolNameError",
    "ToolNotFound",
    "UnknownRule",
    "WorkbenchError",
    "MODEL_ERROR_KINDS",
    "TOOL_ERROR_KINDS",
]

#: The outcomes a failed tool call can have on a ``tool.called`` event.
#: ``interrupted`` is written only by a resume: the call was in flight when its run was
#: killed, so whether it ran is unknown. ``cancelled``: the gateway's host cancelled the call
#: (or the gateway stopped) before the server answered; whether it ran is unknown too.
TOOL_ERROR_KINDS = ("tool_error", "protocol_error", "transport_error", "timeout", "interrupted",
                    "cancelled")
#: The ways a model call can fail, as ``kind`` on an ``agent.failed`` event.
MODEL_ERROR_KINDS = ("model_error", "timeout", "connection_error", "refusal")


class WorkbenchError(Exception):
    """Base of every error the workbench raises on purpose."""


class ConfigError(WorkbenchError):
    """A configuration file is wrong.

    Attributes:
        path: The file (or directory) at fault, as given to the loader.
        key: Dotted key path inside the file (``tools[0]``, ``schedule.tick_every``), or "".
        problem: What is wrong and what is allowed.
        line: 1-based line of the key in the file when known.
        problems: Every problem found in the same file, this one first (a loader raises
            the first and carries the rest here, so a tool can report them all).
    """

    def __init__(self, path: object, key: str, problem: str, line: int | None = None):
        self.path = str(path)
        self.key = key
        self.problem = problem
        self.line = line
        self.problems: list[ConfigError] = [self]
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")


class ToolNameError(WorkbenchError, ValueError):
    """A tool name does not follow the MCP naming rule."""


class ToolNotFound(WorkbenchError, KeyError):
    """A tool is granted but neither registered in-process nor offered by a resolver."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ToolDenied(WorkbenchError):
    """The registry refused a call before any transport was touched.

    Attributes:
        agent: Who asked.
        tool: What was asked for.
        reason: Short reason as recorded on the ``tool.denied`` event, a category programs
            can match (``not granted``, ``not approved``, ``pin drift``, ``hidden by
            curation``, ...).
        detail: Which case of the category it is and what to do, for a person; recorded
            as the event's ``detail`` when not empty (most refusals have none).
    """

    reason_code = "denied"
    detail = ""

    def __init__(self, agent: str, tool: str, reason: str | None = None, hint: str = "",
                 detail: str = ""):
        self.agent = agent
        self.tool = tool
        self.reason = reason or self.reason_code
        self.detail = detail
        msg = f"agent {agent!r} may not call {tool!r}: {self.reason}"
        if detail:
            msg = f"{msg}: {detail}"
        super().__init__(f"{msg}. {hint}" if hint else msg)

    def to_payload(self) -> dict[str, str]:
        """What a ``tool.denied`` event records: ``reason``, and ``detail`` when there is one."""
        return {"reason": self.reason, **({"detail": self.detail} if self.detail else {})}


class CapabilityViolation(ToolDenied):
    """An agent called a tool that its manifest does not grant."""

    reason_code = "not granted"

    def __init__(self, agent: str, tool: str, granted: list[str] | tuple[str, ...] = ()):
        self.granted = tuple(granted)
        hint = (
            f"Granted: {', '.join(self.granted)}." if self.granted else "It is granted no tools."
        )
        super().__init__(
            agent, tool, None, f"{hint} Add {tool!r} to its manifest's tools to allow it."
        )


class ToolCallError(WorkbenchError):
    """A call was dispatched and failed.

    Attributes:
        kind: One of :data:`TOOL_ERROR_KINDS`.
        message: The failure as the tool or transport reported it (kept verbatim). This
            is what the ledger records, so it holds nothing machine-specific.
        operator_hint: Where an operator can look further (a server's log file); shown
            in ``str(exc)``, never recorded on the ledger.
    """

    def __init__(self, kind: str, message: str, tool: str = "", operator_hint: str = ""):
        if kind not in TOOL_ERROR_KINDS:
            raise ValueError(f"unknown tool error kind {kind!r}; allowed: {TOOL_ERROR_KINDS}")
        self.kind = kind
        self.message = message
        self.tool = tool
        self.operator_hint = operator_hint
        text = f"{tool}: {kind}: {message}" if tool else f"{kind}: {message}"
        super().__init__(f"{text} ({operator_hint})" if operator_hint else text)

    def to_payload(self) -> dict[str, str]:
        """The ``error`` object recorded on a ``tool.called`` event."""
        return {"kind": self.kind, "message": self.message}


class LedgerError(WorkbenchError):
    """A ledger file cannot be read as a ledger."""


class LedgerTampered(LedgerError):
    """The hash chain of a ledger does not verify: a line was changed after it was written."""

    def __init__(self, path: object, line: int, detail: str):
        self.path = str(path)
        self.line = line
        super().__init__(
            f"{path}:{line}: hash chain broken ({detail}); the file was changed after it was "
            f"written. Events before line {line} verify; restore the file or start a new run."
        )


class PolicyRefused(WorkbenchError):
    """A curation edit is not allowed by the surface's policy."""


class ExportError(WorkbenchError, ValueError):
    """An export cannot be written: an unknown format, or a path that cannot be a file.

    Nothing is written: not the file, not a temp file beside it.
    """

    def __init__(self, path: object, message: str):
        self.path = path
        super().__init__(f"{path}: {message}")
class ModelError(WorkbenchError):
    """A model call failed after any retries; the agent's turn ends as ``agent.failed``.

    Attributes:
        kind: One of :data:`MODEL_ERROR_KINDS`.
        message: What happened, for the ledger: never an API key, a response id or a time.
    """

    def __init__(self, kind: str, message: str):
        if kind not in MODEL_ERROR_KINDS:
            raise ValueError(f"unknown model error kind {kind!r}; allowed: {MODEL_ERROR_KINDS}")
        self.kind = kind
        self.message = message
        super().__init__(f"{kind}: {message}")


class CassetteMiss(ModelError):
    """Replaying, the model was asked something the cassette has no answer for.

    This ends the run (a replay that improvised would not be a replay).
    """

    def __init__(self, path: object, agent: str, tick: int):
        self.path = str(path)
        self.agent = agent
        self.tick = tick
        self.kind = "model_error"
        self.message = (
            f"cassette {path} has no reply for agent {agent!r} at tick {tick}: the request "
            f"differs from every recorded one (a prompt, tool or model changed); re-record "
            f"it with --cassette-mode record (cassette_mode='record')")
        WorkbenchError.__init__(self, self.message)


class FormError(WorkbenchError):
    """A form built from a tool's input schema cannot give (or take) the values asked for.

    The message names each field by its path (``trip.stops[0].city``) and what it allows.
    """


class SweepError(WorkbenchError):
    """A sweep could not be run (bad grid, a busy output, an executor that is gone)."""


class UnknownRule(WorkbenchError, LookupError):
    """No audit rule has the id asked for (``workbench audit --explain ID``).

    The message names the nearest ids and how to list them all.
    """


class MissingDependency(WorkbenchError, ImportError):
    """An optional part of the workbench needs an extra that is not installed."""

    def __init__(self, module: str, extra: str):
        super().__init__(
            f"{module} is not installed; install it with: "
            f"pip install 'tool-contract-workbench[{extra}]'"
        )
