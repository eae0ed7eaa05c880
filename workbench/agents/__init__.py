"""Agents: the manifest-driven agent, named handlers, and the models that write their text."""

from workbench.agents.base import ManifestAgent
from workbench.agents.handlers import FortuneTeller, build_agent, register_handler
from workbench.agents.models import ScriptedModel, StubModel

__all__ = [
    "FortuneTeller",
    "ManifestAgent",
    "ScriptedModel",
    "StubModel",
    "build_agent",
    "register_handler",
]
