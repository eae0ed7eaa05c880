"""Tool Contract Workbench: what agents may call, what they did call, what MCP servers offer.

The public API is small; everything else lives in sub-packages::

    from workbench import ConfigTree, Conductor, ToolRegistry, default_tool_registry
    result = Conductor.from_config("config", "oracle-grove").run(ticks=5)
    print(result.final_hash)

Names are resolved on first use (PEP 562), so ``import workbench`` costs milliseconds and
a command or kernel pays only for what it touches: pydantic for the contracts, ``mcp``
for the transport, pandas for frames, ipywidgets for widgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "AgentManifest": "workbench.contracts.manifest",
    "CapabilityViolation": "workbench.errors",
    "Conductor": "workbench.engine.conductor",
    "ConfigError": "workbench.errors",
    "ConfigTree": "workbench.contracts.config",
    "Event": "workbench.contracts.events",
    "Ledger": "workbench.engine.ledger",
    "ManifestAgent": "workbench.agents.base",
    "RunResult": "workbench.engine.result",
    "ScenarioConfig": "workbench.contracts.scenario",
    "ToolCallError": "workbench.errors",
    "ToolDenied": "workbench.errors",
    "ToolNotFound": "workbench.errors",
    "ToolRegistry": "workbench.tools.registry",
    "ToolResolver": "workbench.tools.registry",
    "ToolSpec": "workbench.tools.registry",
    "WorkbenchError": "workbench.errors",
    "default_tool_registry": "workbench.tools.defaults",
    "sweep": "workbench.sweeps",
}

# Spelled out (not sorted(_EXPORTS)) so tools can read it; a test keeps the two equal.
__all__ = [
    "AgentManifest",
    "CapabilityViolation",
    "Conductor",
    "ConfigError",
    "ConfigTree",
    "Event",
    "Ledger",
    "ManifestAgent",
    "RunResult",
    "ScenarioConfig",
    "ToolCallError",
    "ToolDenied",
    "ToolNotFound",
    "ToolRegistry",
    "ToolResolver",
    "ToolSpec",
    "WorkbenchError",
    "default_tool_registry",
    "sweep",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # resolve once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from workbench.agents.base import ManifestAgent
    from workbench.contracts.config import ConfigTree
    from workbench.contracts.events import Event
    from workbench.contracts.manifest import AgentManifest
    from workbench.contracts.scenario import ScenarioConfig
    from workbench.engine.conductor import Conductor
    from workbench.engine.ledger import Ledger
    from workbench.engine.result import RunResult
    from workbench.errors import (
        CapabilityViolation,
        ConfigError,
        ToolCallError,
        ToolDenied,
        ToolNotFound,
        WorkbenchError,
    )
    from workbench.sweeps import sweep
    from workbench.tools.defaults import default_tool_registry
    from workbench.tools.registry import ToolRegistry, ToolResolver, ToolSpec
