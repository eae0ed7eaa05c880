"""Notebook widgets: edit manifests and tool descriptions live, run scenarios, read ledgers.

The only part of the workbench that imports ipywidgets. Names are loaded on first use,
so ``import workbench.widgets`` is cheap and a missing extra gives an error that says
what to install::

    from workbench.widgets import Workbench
    Workbench.from_config("config")   # last expression of a cell: the tabs show up

=================  ================================================================
``Workbench``      the tabs below over one shared :class:`Session`
``ManifestEditor`` persona, grants, kinds, schedule; problems as you type; Save
``SurfaceEditor``  a curated tools.json: descriptions, examples, exposure, audit, diff
``ScenarioRunner`` scenario, seed, ticks, transport, Run; violations, calls, ledger
``ApprovalPanel``  (in the runner) calls refused as not approved; approve and re-run
``LedgerView``     a ledger of any size, filtered and one page at a time; export
``HistoryView``    every call of the session (runs and by hand), paged; export
``PagedTable``     any DataFrame one page at a time
``ToolCaller``     call one tool by hand as an agent: a form from its schema, the answer
``ChatPlayground`` type a request: the model's tool calls through the registry, live or replayed
``SchemaForm``     a form generated from a JSON Schema, filled and read from code
``SweepPanel``     a grid of runs with a progress bar; the runs and a violations heatmap
``TranscriptView`` (in the runner) one agent's conversation with its model at one tick
``Session``        config, live manifests and registries the widgets share
=================  ================================================================
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from workbench.errors import MissingDependency

if TYPE_CHECKING:
    from workbench.widgets.approval_panel import ApprovalPanel
    from workbench.widgets.history import CallHistory, HistoryView
    from workbench.widgets.ledger_view import LedgerView
    from workbench.widgets.manifest_editor import ManifestEditor
    from workbench.widgets.paged_table import PagedTable
    from workbench.widgets.playground import ChatPlayground
    from workbench.widgets.runner import ScenarioRunner
    from workbench.widgets.schema_form import SchemaForm
    from workbench.widgets.session import Session
    from workbench.widgets.surface_editor import SurfaceEditor
    from workbench.widgets.sweep_panel import SweepPanel
    from workbench.widgets.tabs import Workbench
    from workbench.widgets.tool_caller import ToolCaller
    from workbench.widgets.transcript_view import TranscriptView

__all__ = [
    "ApprovalPanel",
    "CallHistory",
    "ChatPlayground",
    "HistoryView",
    "LedgerView",
    "ManifestEditor",
    "PagedTable",
    "ScenarioRunner",
    "SchemaForm",
    "Session",
    "SurfaceEditor",
    "SweepPanel",
    "ToolCaller",
    "TranscriptView",
    "Workbench",
]

_HOMES = {
    "ApprovalPanel": "workbench.widgets.approval_panel",
    "CallHistory": "workbench.widgets.history",
    "ChatPlayground": "workbench.widgets.playground",
    "HistoryView": "workbench.widgets.history",
    "LedgerView": "workbench.widgets.ledger_view",
    "ManifestEditor": "workbench.widgets.manifest_editor",
    "PagedTable": "workbench.widgets.paged_table",
    "ScenarioRunner": "workbench.widgets.runner",
    "SchemaForm": "workbench.widgets.schema_form",
    "Session": "workbench.widgets.session",
    "SurfaceEditor": "workbench.widgets.surface_editor",
    "SweepPanel": "workbench.widgets.sweep_panel",
    "ToolCaller": "workbench.widgets.tool_caller",
    "TranscriptView": "workbench.widgets.transcript_view",
    "Workbench": "workbench.widgets.tabs",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'workbench.widgets' has no attribute {name!r}")
    try:
        import ipywidgets  # noqa: F401
    except ImportError as exc:
        raise MissingDependency("ipywidgets", "widgets") from exc
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
