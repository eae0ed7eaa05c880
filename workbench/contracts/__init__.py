"""The contracts as data: events, manifests, scenarios and the config tree.

Pure models and loading; nothing here does I/O beyond reading config files.
"""

from workbench.contracts.config import ConfigTree
from workbench.contracts.events import Event
from workbench.contracts.manifest import AgentManifest
from workbench.contracts.scenario import GovernorLimits, ScenarioConfig

__all__ = ["AgentManifest", "ConfigTree", "Event", "GovernorLimits", "ScenarioConfig"]
