"""Curating a toolset: what agents are shown of an MCP server, and what is never trusted.

A *surface* is a directory (``tools.json``, ``policy.json``, ``pins.json``) holding a
toolset as agents should see it. People improve descriptions, parameter descriptions and
examples and choose which tools are exposed, under a policy that never lets curation
change an external server's contract. The server's own metadata is treated as untrusted:
it is pinned (:mod:`~workbench.surface.pins`), audited (:mod:`workbench.audit`),
and its annotations never skip approval of a destructive call
(:mod:`~workbench.surface.approval`). :class:`CuratedResolver` puts a surface in front of
the MCP client.

Nothing here imports ``mcp`` or ``pandas`` at import time; import and the demo server load
the SDK when they run.

Example:
    >>> from workbench.surface import apply, validate
    >>> edit = {"tool": "get_current_time", "kind": "description",
    ...         "value": "Current time in an IANA timezone."}
    >>> apply("config/surfaces/time", [edit])  # doctest: +SKIP
"""

from workbench.contracts.surface import (
    CAPABILITIES,
    EDIT_KINDS,
    is_empty,
    load_pins,
    load_policy,
    load_tools,
)
from workbench.surface.approval import (
    ApprovalGuard,
    ApprovalPolicy,
    ApprovalRequest,
    is_destructive,
    prompt_approver,
)
from workbench.surface.audit import Finding, audit
from workbench.surface.candidate import Candidate, materialize
from workbench.surface.edits import apply
from workbench.surface.importer import fetch_tools, import_surface
from workbench.surface.overlay import CuratedResolver, HiddenByCuration, PinDrift
from workbench.surface.pins import PinChange, fingerprint, pin_changes
from workbench.surface.validate import validate

__all__ = [
    "CAPABILITIES",
    "EDIT_KINDS",
    "ApprovalGuard",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Candidate",
    "CuratedResolver",
    "Finding",
    "HiddenByCuration",
    "PinChange",
    "PinDrift",
    "apply",
    "audit",
    "pin_changes",
    "fetch_tools",
    "fingerprint",
    "import_surface",
    "is_destructive",
    "is_empty",
    "load_pins",
    "load_policy",
    "load_tools",
    "materialize",
    "prompt_approver",
    "validate",
]
