"""Handlers: named agent behaviours a manifest can ask for with ``handler:``.

A handler is a :class:`~workbench.agents.base.ManifestAgent` subclass. Handlers make their
tool calls plainly and never check grants themselves: the registry is the boundary, and a
refused call must reach the ledger as ``tool.denied``, not be avoided silently.
"""

from __future__ import annotations

from collections.abc import Callable

from workbench.agents.base import ManifestAgent, Turn
from workbench.agents.models import Model, ModelRequest
from workbench.contracts.manifest import AgentManifest
from workbench.errors import ConfigError
from workbench.tools.registry import ToolRegistry

__all__ = ["FortuneTeller", "HANDLERS", "build_agent", "register_handler"]

#: Handler name -> agent class.
HANDLERS: dict[str, type[ManifestAgent]] = {}


def register_handler(name: str) -> Callable[[type[ManifestAgent]], type[ManifestAgent]]:
    """Class decorator: make an agent class available as ``handler: <name>``."""

    def decorate(cls: type[ManifestAgent]) -> type[ManifestAgent]:
        HANDLERS[name] = cls
        return cls

    return decorate


@register_handler("fortune-teller")
class FortuneTeller(ManifestAgent):
    """Reads an omen for the current scene and speaks it.

    Calls ``oracle(seed=<current scene>)``, weaves the omen into its prompt and puts it on
    the payload of its ``oracle.spoke`` event. Without the ``oracle`` grant the call raises
    :class:`~workbench.errors.CapabilityViolation`, which ends its turn (``tool.denied``
    then ``agent.failed`` on the ledger).
    """

    def act(self, turn: Turn) -> None:
        """Consult the oracle on the scene, then speak."""
        scene = turn.scene()
        omen = self.call_tool("oracle", seed=scene)["omen"]
        if getattr(self.model, "converse", None) is not None:
            # A chat model speaks the omen through its tool loop (its calls are recorded).
            said = self.speak(turn, extra=f"THE OMEN: {omen}")
        else:
            said = self.model.respond(ModelRequest(
                agent=self.name, role=self.manifest.role,
                prompt=self.build_prompt(turn, extra=f"THE OMEN: {omen}"),
                tools=tuple(self.available_tools()), profile=self.manifest.model.profile,
            )).text
        # What is spoken carries the omen: a model that did not weave it in is prefixed by it.
        text = said if said and omen in said else f"{omen} {said or ''}".strip()
        self.emit("oracle.spoke", {"text": text, "omen": omen, "seed": scene})


def build_agent(manifest: AgentManifest, registry: ToolRegistry, model: Model | None = None,
                source: str = "") -> ManifestAgent:
    """The agent a manifest describes: its handler's class, or the generic agent.

    Raises:
        ConfigError: the manifest names a handler that does not exist.
    """
    if manifest.handler is None:
        return ManifestAgent(manifest, registry, model)
    cls = HANDLERS.get(manifest.handler)
    if cls is None:
        raise ConfigError(
            source or f"agents/{manifest.name}.yaml", "handler",
            f"no handler named {manifest.handler!r}; known handlers: "
            f"{', '.join(sorted(HANDLERS))} (or leave 'handler' out for the generic agent)",
        )
    return cls(manifest, registry, model)
