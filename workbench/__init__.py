"""Tool Contract Workbench: what agents may call, what they did call, what MCP servers offer.

The public API is small; everything else lives in sub-packages::

    from workbench import ConfigTree, Conductor, ToolRegistry, default_tool_registry
    result = Conductor.from_config("config", "oracle-grove").run(ticks=5)
    print(result.final_hash)

Heavy dependencies (``mcp``, ``pandas``, ``ipywidgets``) are imported only when a feature
that needs them is used, so ``import workbench`` stays fast.
"""

from workbench.agents.base import ManifestAgent
from workbench.contracts.config import ConfigTree
from workbench.contracts.events import Event
from workbench.contracts.manifest import AgentManifest
from workbench.contracts.scenario import ScenarioConfig
from workbench.engine.conductor import Conductor, RunResult
from workbench.engine.ledger import JsonlLedgerStore, Ledger
from workbench.errors import (
    CapabilityViolation,
    ConfigError,
    ToolCallError,
    ToolDenied,
    ToolNotFound,
    WorkbenchError,
)
from workbench.tools.builtins import default_tool_registry, oracle
from workbench.tools.registry import ToolRegistry, ToolResolver, ToolSpec

__version__ = "0.1.0"

__all__ = [
    "AgentManifest",
    "CapabilityViolation",
    "Conductor",
    "ConfigError",
    "ConfigTree",
    "Event",
    "JsonlLedgerStore",
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
    "oracle",
]
