"""Workbench: the editors and the runner in one Tab, over one shared session.

This is what a notebook displays. Every tab works on the same
:class:`~workbench.widgets.session.Session`: one registry, one dict of live manifests.
Untick a grant in *Manifests*, press Run in *Run*, and the violation is in the tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as widgets

from workbench.tools.registry import ToolRegistry
from workbench.widgets.manifest_editor import ManifestEditor
from workbench.widgets.runner import ScenarioRunner
from workbench.widgets.session import Session
from workbench.widgets.tool_caller import ToolCaller

__all__ = ["Workbench"]


class Workbench(widgets.Tab):
    """Manifests, surfaces and runs of one config directory, in tabs.

    Args:
        session: The shared session.
        scenario: The scenario the runner selects first.

    Attributes:
        session: The shared session (config, live manifests, registries).
        manifest_editor: The *Manifests* tab.
        surface_editor: The *Surfaces* tab (None when the config has no surfaces).
        runner: The *Run* tab.
        tool_caller: The *Call a tool* tab (one tool, by hand, as an agent).
        history: The *History* tab: every call of the session, by a run or by hand.

    Example:
        >>> from workbench.widgets import Workbench
        >>> wb = Workbench.from_config("config")  # doctest: +SKIP
        >>> wb  # in a notebook cell: displays the tabs  # doctest: +SKIP
    """

    def __init__(self, session: Session, scenario: str | None = None, **kwargs: Any):
        self.session = session
        self.runner = ScenarioRunner(session, scenario)
        # Open the editor on the runner's scenario's first cast member: the agent a
        # person is most likely to edit next.
        cast = session.config.scenario(self.runner.scenario_select.value).cast
        self.manifest_editor = ManifestEditor(session, cast[0] if cast else None,
                                              scenario=self.runner.scenario_select.value)
        # The grants offered are the selected scenario's tools.
        self.runner.scenario_select.observe(self.manifest_editor.on_scenario_change,
                                            names=["value"])
        self.surface_editor = _surface_editor(session)
        self.tool_caller = ToolCaller(session, agent=cast[0] if cast else None)
        # A run may start MCP servers whose tools then become grantable in the editor.
        self.runner.after_run.append(lambda _result: self.manifest_editor.refresh_tools())
        tabs: list[tuple[str, widgets.Widget]] = [("Manifests", self.manifest_editor)]
        if self.surface_editor is not None:
            tabs.append(("Surfaces", self.surface_editor))
        tabs.append(("Run", self.runner))
        tabs.append(("Call a tool", self.tool_caller))
        from workbench.widgets.history import HistoryView

        self.history = HistoryView(session.history)
        tabs.append(("History", self.history))
        super().__init__(children=[w for _, w in tabs], titles=[t for t, _ in tabs], **kwargs)

    @classmethod
    def from_config(cls, root: str | Path = "config", registry: ToolRegistry | None = None,
                    scenario: str | None = None) -> Workbench:
        """A workbench over the config directory ``root``.

        Args:
            root: The config directory (agents/, scenarios/, surfaces/).
            registry: The in-process registry to share (the built-ins when None).
            scenario: The scenario the runner selects first.

        Raises:
            ConfigError: the config does not load (the message names file and key).
        """
        return cls(Session.from_config(root, registry), scenario)

    def show_tab(self, title: str) -> None:
        """Bring the tab titled ``title`` to the front (``"Run"``, ``"History"``...)."""
        titles = list(self.titles)
        if title not in titles:
            raise ValueError(f"no tab {title!r}; tabs: {', '.join(titles)}")
        self.selected_index = titles.index(title)

    def close(self) -> None:
        """Close the widgets and the session's MCP connections, if any were opened."""
        self.session.close()
        super().close()

    def __repr__(self) -> str:
        return f"Workbench({self.session!r})"


def _surface_editor(session: Session) -> widgets.Widget | None:
    """The surface editor when the config has curated surfaces, else None."""
    if not any((session.root / "surfaces").glob("*/tools.json")):
        return None
    from workbench.widgets.surface_editor import SurfaceEditor

    return SurfaceEditor(session)
