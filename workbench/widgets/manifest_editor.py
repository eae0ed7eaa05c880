"""ManifestEditor: edit an agent's manifest live, see problems as you type, save as YAML.

Every keystroke builds a candidate manifest from the fields and validates it exactly as
``load_manifest`` would validate the saved file, so the problem shown next to a field is
the :class:`~workbench.errors.ConfigError` message the file would produce (file, line,
key path, what is allowed). A valid candidate becomes the session's live manifest at
once, so the next run uses it; an invalid one changes nothing and runs keep the last
valid version. Save writes the YAML atomically, changing only the edited keys (comments and explicit
keys survive, see :mod:`~workbench.contracts.yaml_roundtrip`), and reloads it to prove the
round trip.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import yaml

from workbench.atomic import write_text_atomic
from workbench.contracts._yaml import model_from_yaml
from workbench.contracts.manifest import AgentManifest, load_manifest
from workbench.errors import ConfigError, WorkbenchError
from workbench.widgets.display import (
    ERROR_COLOR,
    OK_COLOR,
    WARN_COLOR,
    ErrorArea,
    guarded,
    problem_html,
    split_list,
)
from workbench.widgets.session import GrantOption, Session

__all__ = ["EDITED_FIELDS", "ManifestEditor", "manifest_yaml"]

#: The manifest keys the editor has a field for, in display order.
EDITED_FIELDS = ("role", "persona", "tools", "may_emit", "subscribes_to", "schedule")
_ROLES = ("worker", "judge", "observer")


class _ManifestDumper(yaml.SafeDumper):
    """Lists of scalars in flow style (``tools: [oracle]``), as the hand-written files are."""


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flow = all(not isinstance(item, dict | list) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_ManifestDumper.add_representer(list, _represent_list)


def manifest_yaml(manifest: AgentManifest | dict[str, Any], header: str = "") -> str:
    """The YAML text of a manifest (defaults left out, keys in field order).

    Args:
        manifest: A manifest or its data (``to_data()`` form).
        header: Comment lines to keep at the top (each starting with ``#``).
    """
    data = manifest.to_data() if isinstance(manifest, AgentManifest) else manifest
    body = yaml.dump(data, Dumper=_ManifestDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)
    return f"{header}{body}"


def _header_comment(path: Path) -> str:
    """The leading comment block of an existing file, kept on save (it explains the agent)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return ""
    header = []
    for line in lines:
        if not line.startswith("#"):
            break
        header.append(line if line.endswith("\n") else line + "\n")
    return "".join(header)


def _on_disk(path: Path) -> tuple[str, dict[str, Any]] | None:
    """The file's text and its manifest's full data (None: no file, or one that fails)."""
    try:
        return path.read_text(encoding="utf-8"), load_manifest(path).model_dump(mode="json")
    except (OSError, ConfigError):
        return None


def _file_text(disk: tuple[str, dict[str, Any]] | None, data: dict[str, Any],
               header: str) -> str:
    """The text Save writes for manifest ``data``: the file with only the edited keys changed.

    Comments, explicit keys and list styles in the file survive a save: the file is
    round-tripped with ruamel.yaml and only top-level keys whose value differs between
    the file and ``data`` are rewritten. A new file (or one that does not load) is dumped.
    """
    if disk is None:
        return manifest_yaml(data, header)
    from workbench.contracts.yaml_roundtrip import updated_yaml

    text, on_disk = disk
    return updated_yaml(text, {k: v for k, v in data.items() if on_disk.get(k) != v})


def _field_of(key: str) -> str:
    """``schedule.tick_every`` -> ``schedule``; ``tools[0]`` -> ``tools``."""
    return key.split(".", 1)[0].split("[", 1)[0]


def _grant_label(option: GrantOption) -> str:
    """A grant checkbox's label: the tool's name, flagged when a run would refuse it."""
    if option.hidden:
        return f"{option.tool} (hidden by curation)"
    return option.tool if option.group != NOT_OFFERED else f"{option.tool} (not offered)"


#: The group of granted tools the scenario does not offer at all.
NOT_OFFERED = "not offered by this scenario"
#: The group of granted tools of servers that have not run yet (nothing lists them).
UNLISTED = "from its servers (listed after the first run)"


class ManifestEditor(widgets.VBox):
    """Edit one agent's persona, grants, emitted and heard kinds, and schedule.

    Grants are offered per scenario (:meth:`Session.grant_options`): the tools an agent of
    that scenario can really be granted, grouped by server; a tool its surface hides is
    shown as hidden and cannot be ticked (only unticked, if the manifest grants it).
    Without a scenario, the session's in-process (and built-in MCP) tools are offered.

    Args:
        session: The shared session.
        agent: The agent to show first (the first by name when None).
        scenario: The scenario whose tools are offered (see :meth:`set_scenario`).

    Example:
        >>> session = Session.from_config("config")  # doctest: +SKIP
        >>> editor = ManifestEditor(session, "fortune-teller")  # doctest: +SKIP
        >>> editor.set_grant("oracle", False)  # doctest: +SKIP
        >>> editor.session.manifests["fortune-teller"].tools  # doctest: +SKIP
        ()
    """

    def __init__(self, session: Session, agent: str | None = None,
                 scenario: str | None = None, **kwargs: Any):
        names = sorted(session.manifests)
        if not names:
            raise WorkbenchError(f"no agents in {session.root / 'agents'}; add a manifest first")
        self.session = session
        self.scenario = scenario
        self.options: list[GrantOption] = []
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self._loading = False
        self._grant_order: list[str] = []
        self._header = ""
        self._disk: tuple[str, dict[str, Any]] | None = None
        self.problems: dict[str, str] = {}

        # flex 0: a field keeps its width when the problem beside it is long.
        wide = widgets.Layout(width="32em", flex="0 0 auto")
        self.agent_select = widgets.Dropdown(options=names, value=agent or names[0],
                                             description="Agent")
        self.role = widgets.Dropdown(options=_ROLES, description="Role")
        self.persona = widgets.Textarea(description="Persona", layout=widgets.Layout(
            width="32em", height="5em", flex="0 0 auto"))
        self.grant_boxes: dict[str, widgets.Checkbox] = {}
        self.grants = widgets.VBox(layout=widgets.Layout(margin="0 0 0 6em"))
        self.grants_title = widgets.HTML()
        self.may_emit = widgets.Text(description="May emit", layout=wide,
                                     placeholder="kinds, comma-separated: oracle.spoke")
        self.subscribes_to = widgets.Text(description="Hears", layout=wide,
                                          placeholder="kinds, comma-separated: world.observed")
        self.tick_every = widgets.Text(
            description="Tick every", layout=wide,
            placeholder="blank: only when it hears something; 0: every tick; N: every N",
        )
        self._problem_labels = {f: widgets.HTML() for f in (*EDITED_FIELDS, "general")}
        self.status = widgets.HTML()
        self.save_button = widgets.Button(description="Save", icon="save",
                                          tooltip="Write the manifest's YAML file")
        self.revert_button = widgets.Button(description="Revert", icon="undo",
                                            tooltip="Reload the manifest from its file")

        labels = self._problem_labels
        super().__init__(children=[
            self.agent_select,
            widgets.HBox([self.role, labels["role"]]),
            widgets.HBox([self.persona, labels["persona"]]),
            widgets.HBox([widgets.Label("Grants", layout=widgets.Layout(width="6em")),
                          self.grants_title, labels["tools"]]),
            self.grants,
            widgets.HBox([self.may_emit, labels["may_emit"]]),
            widgets.HBox([self.subscribes_to, labels["subscribes_to"]]),
            widgets.HBox([self.tick_every, labels["schedule"]]),
            labels["general"],
            widgets.HBox([self.save_button, self.revert_button, self.status]),
            self.error_area,
        ], **kwargs)

        self.agent_select.observe(self._on_agent, names=["value"])
        for field in (self.role, self.persona, self.may_emit, self.subscribes_to,
                      self.tick_every):
            field.observe(self._on_edit, names=["value"])
        self.save_button.on_click(self._on_save)
        self.revert_button.on_click(self._on_revert)
        self._load(self.agent_select.value)

    # -- public API -------------------------------------------------------------------
    @property
    def agent(self) -> str:
        """The agent being edited."""
        return self.agent_select.value

    @property
    def manifest(self) -> AgentManifest:
        """The agent's live manifest (the last valid state of the fields)."""
        return self.session.manifests[self.agent]

    def select(self, agent: str) -> None:
        """Show ``agent`` in the editor."""
        self.agent_select.value = agent

    def set_grant(self, tool: str, granted: bool) -> None:
        """Tick or untick the grant of ``tool`` (as clicking its checkbox does)."""
        if tool not in self.grant_boxes:
            self._add_grant_box(tool)
        self.grant_boxes[tool].value = granted

    def set_scenario(self, scenario: str | None) -> None:
        """Offer the grants of ``scenario`` (None: the session's in-process tools)."""
        self.scenario = scenario
        self.refresh_tools()

    def refresh_tools(self) -> None:
        """Rebuild the grant checkboxes from the tools the scenario offers now.

        Does nothing when the offer is unchanged, so ticked boxes of an edit that is not
        valid yet are left alone.
        """
        if self._offer(self.manifest.tools) != self.options:
            self._build_grants(self.manifest.tools)

    def save(self) -> Path:
        """Write the live manifest to its YAML file atomically and check the round trip.

        Returns:
            The file written.

        Raises:
            ConfigError: a field has a problem (nothing is written).
        """
        manifest, problems = self._validate()
        if manifest is None:
            first = next(iter(problems.values()))
            raise ConfigError(first.path, first.key,
                              f"{first.problem} (not saved: fix this field first)", first.line)
        path = self.session.manifest_path(manifest.name)
        text = _file_text(self._disk, manifest.model_dump(mode="json"), self._header)
        # Prove the text reads back as this manifest before it replaces the file.
        reread = model_from_yaml(path, AgentManifest, data=yaml.safe_load(text), text=text)
        if reread != manifest:
            raise WorkbenchError(f"{path}: the YAML would not read back as the edited "
                                 f"manifest; nothing was written. Please report this.")
        write_text_atomic(path, text, mkdir=False)  # keeps the file's mode and a link
        self.session.saved[manifest.name] = load_manifest(path)
        self._disk = _on_disk(path)
        # Relative to the config: the status is widget state, stored in saved notebooks.
        self._show_status(f"saved {path.relative_to(self.session.root)}")
        return path

    def revert(self) -> None:
        """Reload the manifest from its file, dropping unsaved edits."""
        path = self.session.manifest_path(self.agent)
        manifest = load_manifest(path)
        self.session.manifests[manifest.name] = manifest
        self.session.saved[manifest.name] = manifest
        self._load(manifest.name)

    # -- fields <-> manifest ----------------------------------------------------------
    def _load(self, name: str) -> None:
        manifest = self.session.manifests[name]
        self._header = _header_comment(self.session.manifest_path(name))
        self._disk = _on_disk(self.session.manifest_path(name))
        self._loading = True
        try:
            self.role.value = manifest.role
            self.persona.value = manifest.persona
            self.may_emit.value = ", ".join(manifest.may_emit)
            self.subscribes_to.value = ", ".join(manifest.subscribes_to)
            every = manifest.schedule.tick_every
            self.tick_every.value = "" if every is None else str(every)
            self._build_grants(manifest.tools)
        finally:
            self._loading = False
        self._set_problems({})
        self._show_status()

    def _offer(self, granted: tuple[str, ...]) -> list[GrantOption]:
        options = self.session.grant_options(self.scenario)
        offered = {o.tool for o in options}
        # Servers not started yet may well offer it: say so rather than "not offered".
        group = UNLISTED if self.session.lists_unknown(self.scenario) else NOT_OFFERED
        return options + [GrantOption(t, group) for t in sorted(set(granted) - offered)]

    def _build_grants(self, granted: tuple[str, ...]) -> None:
        for box in self.grant_boxes.values():
            box.unobserve(self._on_edit, names=["value"])
        self.grant_boxes = {}
        self._grant_order = list(granted)
        self.options = self._offer(granted)
        where = f"offered by {self.scenario}" if self.scenario else "in-process"
        self.grants_title.value = f"<i>{html.escape(where)}</i>"
        loading, self._loading = self._loading, True
        try:
            rows: list[widgets.Widget] = []
            group = None
            for option in self.options:
                if option.group != group:
                    group = option.group
                    rows.append(widgets.HTML(f"<b>{html.escape(group)}</b>"))
                rows.append(self._grant_box(option, option.tool in granted))
            self.grants.children = tuple(rows)
        finally:
            self._loading = loading

    def _grant_box(self, option: GrantOption, value: bool) -> widgets.Checkbox:
        tip = self.session.describe_tool(option.tool) or "no registry knows this tool yet"
        if option.hidden:
            tip = "the scenario's surface hides this tool: a call is refused (hidden by curation)"
        box = widgets.Checkbox(value=value, indent=False, description=_grant_label(option),
                               tooltip=tip, layout=widgets.Layout(margin="0 0 0 1em"),
                               # A hidden tool can be taken away, never granted.
                               disabled=option.hidden and not value)
        box.observe(self._on_edit, names=["value"])
        self.grant_boxes[option.tool] = box
        return box

    def _add_grant_box(self, tool: str, value: bool = False) -> None:
        option = GrantOption(tool, NOT_OFFERED)
        self.options.append(option)
        box = self._grant_box(option, value)
        self.grants.children = (*self.grants.children, box)

    def _tools_value(self) -> list[str]:
        # Keep the manifest's order for tools that stay granted: the order reaches the
        # prompt's AVAILABLE TOOLS block, so re-granting must not change a run.
        ticked = [t for t, box in self.grant_boxes.items() if box.value]
        kept = [t for t in self._grant_order if t in ticked]
        return kept + [t for t in ticked if t not in kept]

    def _field_values(self) -> dict[str, Any]:
        every = self.tick_every.value.strip()
        return {
            "role": self.role.value,
            "persona": self.persona.value,
            "tools": self._tools_value(),
            "may_emit": split_list(self.may_emit.value),
            "subscribes_to": split_list(self.subscribes_to.value),
            "schedule": {"tick_every": every or None},
        }

    def _validate(self) -> tuple[AgentManifest | None, dict[str, ConfigError]]:
        """Validate the fields; return the manifest (None if any problem) and problems.

        Each bad field is reported on its own: after a problem, that field falls back to
        its last valid value and validation runs again, so two bad fields show two
        messages rather than one at a time.
        """
        name = self.agent
        path = self.session.manifest_path(name)
        base = self.session.manifests[name].to_data()
        trial = self._field_values()
        problems: dict[str, ConfigError] = {}
        for _ in range(len(trial) + 1):
            merged = {**base, **trial}
            # Field order, as to_data() gives it, so the text is the one Save writes.
            data = {k: merged[k] for k in AgentManifest.model_fields if k in merged}
            data.update((k, v) for k, v in merged.items() if k not in data)
            # The same text Save would write, so a problem's line number is the file's.
            text = _file_text(self._disk, data, self._header)
            try:
                manifest = model_from_yaml(path, AgentManifest, data=data, text=text)
            except ConfigError as exc:
                field = _field_of(exc.key)
                if field in trial and field not in problems:
                    problems[field] = exc
                    del trial[field]  # fall back to the last valid value
                    continue
                problems["general"] = exc
                return None, problems
            return (None if problems else manifest), problems
        return None, problems  # pragma: no cover - the loop always returns

    # -- callbacks --------------------------------------------------------------------
    @guarded
    def on_scenario_change(self, change: dict[str, Any]) -> None:
        """An ``observe`` callback: offer the grants of the scenario now selected."""
        self.set_scenario(change["new"])

    @guarded
    def _on_agent(self, change: dict[str, Any]) -> None:
        self._load(change["new"])

    @guarded
    def _on_edit(self, change: dict[str, Any]) -> None:
        if self._loading:
            return
        manifest, problems = self._validate()
        self._set_problems(problems)
        if manifest is not None:
            self.session.manifests[manifest.name] = manifest
        self._show_status()

    @guarded
    def _on_save(self, _button: widgets.Button) -> None:
        self.save()

    @guarded
    def _on_revert(self, _button: widgets.Button) -> None:
        self.revert()

    # -- display ----------------------------------------------------------------------
    def _set_problems(self, problems: dict[str, ConfigError]) -> None:
        self.problems = {field: str(exc) for field, exc in problems.items()}
        for field, label in self._problem_labels.items():
            label.value = problem_html(self.problems.get(field))

    def _show_status(self, note: str = "") -> None:
        name = self.agent
        if self.problems:
            text = "not applied: runs use the last valid version until the problems are fixed"
            color = ERROR_COLOR
        elif self.session.manifests[name] != self.session.saved.get(name):
            text, color = "live (unsaved): the next run uses this version", WARN_COLOR
        else:
            text, color = "live, saved", OK_COLOR
        if note:
            text = f"{note}; {text}"
        self.status.value = f'<span style="color:{color}">{html.escape(text)}</span>'

    def __repr__(self) -> str:
        return f"ManifestEditor(agent={self.agent!r}, problems={sorted(self.problems)})"
