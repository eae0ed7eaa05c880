"""Agents: the manifest-driven agent, named handlers, and the models that write their text.

``openai`` agents talk to a chat model through the tool loop (:mod:`.tool_loop`); every
tool is shown to them by one renderer (:mod:`.render`), and their model calls can be
recorded and replayed with a :class:`Cassette`.
"""

from workbench.agents.base import ManifestAgent
from workbench.agents.cassette import Cassette
from workbench.agents.handlers import FortuneTeller, build_agent, register_handler
from workbench.agents.models import ScriptedModel, StubModel
from workbench.agents.openai_model import OpenAIModel

__all__ = [
    "Cassette",
    "FortuneTeller",
    "ManifestAgent",
    "OpenAIModel",
    "ScriptedModel",
    "StubModel",
    "build_agent",
    "register_handler",
]
