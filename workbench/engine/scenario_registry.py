"""Which registry a run gets: in-process, the MCP environment gate, or a scenario's servers.

One place decides this for the CLI, the conductor and the widgets:

* a scenario that names ``servers:`` gets them started for the run (stdio commands run
  from the project directory, the parent of the config directory), its ``surface:`` put
  in front of them, and built-ins registered in-process only for names no server offers;
* otherwise :func:`~workbench.tools.builtins.default_tool_registry` (in-process, or the
  MCP gate of ``MCP_ORACLE``/``MCP_SERVERS``).

Whenever a tool comes from a server, an approval guard is installed: a tool is
destructive unless a *trusted* server says ``readOnlyHint``, and a destructive call needs
a yes from the approver. Without an approver nothing destructive runs.

A call of an idempotent tool (``idempotentHint``) from a trusted server that fails with
``transport_error`` or ``timeout`` is sent once more (:func:`may_retry`); the conductor
records the failure and then the retry, marked ``retry_of`` the failure's seq.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.contracts.events import TOOL_CALLED
from workbench.contracts.scenario import ScenarioConfig
from workbench.errors import WorkbenchError
from workbench.tools.builtins import BUILTIN_TOOLS
from workbench.tools.defaults import default_tool_registry
from workbench.tools.registry import ToolRegistry

__all__ = ["guard_registry", "may_retry", "registry_over", "scenario_registry"]

#: Failures after which an idempotent call of a trusted server is sent once more.
RETRIED_KINDS = ("transport_error", "timeout")


def scenario_registry(root: str | Path, scenario: ScenarioConfig, *,
                      approver: Any = None, env: Mapping[str, str] | None = None
                      ) -> ToolRegistry:
    """The registry ``scenario`` runs on; close ``registry.resolver`` after the run.

    Args:
        root: The config directory (``surface`` paths are relative to it).
        scenario: The scenario.
        approver: ``approver(ApprovalRequest) -> bool`` for calls that need confirmation;
            None refuses them all.
        env: Environment for the MCP gate (``os.environ`` when None).
    """
    root = Path(root)
    if not scenario.servers:
        registry = default_tool_registry(env)
        if registry.resolver is not None:
            guard_registry(registry, approver)
        return registry

    from workbench.tools.mcp.env import resolver_for_servers

    # Commands like `node external/...` are relative to the project directory, the parent
    # of the config directory, wherever the run was started from (a notebook, say).
    resolver = resolver_for_servers(scenario.servers, cwd=root.resolve().parent)
    try:
        return registry_over(root, scenario, resolver, approver=approver)
    except BaseException:
        resolver.close()
        raise


def registry_over(root: str | Path, scenario: ScenarioConfig, resolver: Any, *,
                  approver: Any = None) -> ToolRegistry:
    """A fresh registry over an already connected ``resolver`` of ``scenario``'s servers.

    Built-ins are registered in-process only for names no server offers (a server's tool
    of the same name wins); the scenario's ``surface``, read now so that the latest
    curation counts, is put in front of the resolver; the approval guard is installed.
    """
    registry = ToolRegistry()
    served = set(resolver.tool_names())
    for tool in BUILTIN_TOOLS:
        if tool["name"] not in served:
            registry.register(**tool)
    if scenario.surface is None:
        registry.attach(resolver)
    else:
        from workbench.surface.overlay import CuratedResolver

        CuratedResolver.from_dir(Path(root) / scenario.surface, resolver,
                                 trust_code=scenario.trusted_code).install(registry)
    guard_registry(registry, approver)
    return registry


def guard_registry(registry: ToolRegistry, approver: Any) -> None:
    """Install the approval guard on ``registry`` (None approves nothing)."""
    from workbench.surface.approval import ApprovalGuard, ApprovalPolicy

    ApprovalGuard(approver if approver is not None else ApprovalPolicy()).install(registry)


def may_retry(registry: ToolRegistry, error: Any, failed: Any, replay: Any = ()) -> bool:
    """Whether a failed call is sent once more (the conductor records both).

    Only a ``transport_error`` or ``timeout``, only for a tool whose ``idempotentHint``
    is true (the spec's default is false), and only when the server offering it is
    trusted: an untrusted server's hints are never believed. While a run is resumed
    (``replay`` holds the recorded events still to re-derive), the ledger decides: the
    call was retried if the next recorded event is its retry.

    Args:
        registry: The run's registry.
        error: The :class:`~workbench.errors.ToolCallError`.
        failed: The recorded ``tool.called`` event of the failure.
        replay: The events a resume has still to re-derive (empty when live).
    """
    if replay:
        nxt = replay[0]
        return (nxt.kind == TOOL_CALLED and isinstance(nxt.payload, dict)
                and nxt.payload.get("retry_of") == failed.seq)
    tool = getattr(error, "tool", "") or failed.payload.get("tool", "")
    if getattr(error, "kind", None) not in RETRIED_KINDS or tool in registry.local_names():
        return False
    connection_for = getattr(registry.resolver, "connection_for", None)
    if connection_for is None:
        return False
    try:
        spec = registry.spec(tool)
        trusted = bool(getattr(connection_for(tool), "trusted", False))
    except WorkbenchError:
        return False
    from workbench.tools.mcp.wire import hints

    return trusted and hints(spec.annotations)["idempotentHint"]
