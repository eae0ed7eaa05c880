"""SurfaceEditor: curate a toolset (tools.json) under its policy, tool by tool.

For each tool of a surface directory the editor shows what agents will read (its
description, each parameter's description, examples), whether the tool is exposed at
all, the audit findings about that text, and a diff against the server's original text
(from ``pins.json``), and the pin drift a scenario using the surface will meet: a pin binds
its server's name, so a scenario that names no server as the pin does has every call of
the tool refused as ``pin drift`` (read from the config alone; no server is started).
Edits go through :func:`workbench.surface.apply`, so the surface's
policy decides: as the user types, the pending edits are checked in memory with the same
function and a refusal's reason is shown next to its field, and the audit and the selection
score read the pending text (a poisoned description is flagged before Apply, not after);
Apply writes the allowed ones atomically, and a refused edit changes nothing on disk.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from workbench.contracts.surface import entry_from_wire, load_pins, load_policy, load_tools
from workbench.errors import WorkbenchError
from workbench.frames import findings_frame
from workbench.selection.rankers import default_selector
from workbench.surface.audit import audit
from workbench.surface.edits import apply, apply_edits, schema_changes
from workbench.surface.overlay import surface_label
from workbench.surface.pins import drift_detail
from workbench.surface.validate import validate
from workbench.widgets.display import (
    ERROR_COLOR,
    OK_COLOR,
    ErrorArea,
    guarded,
    problem_html,
    show,
    table_html,
)
from workbench.widgets.session import Session

__all__ = ["SurfaceEditor"]

_FIELDS = ("exposed", "description", "params", "examples", "schema")
#: Which field an edit of each kind belongs to, for showing its refusal next to it.
_FIELD_OF_KIND = {"add": "exposed", "remove": "exposed", "description": "description",
                  "params": "params", "examples": "examples", "schema": "schema",
                  "code": "schema"}
_HIDDEN = " (hidden)"


class _Invalid(WorkbenchError):
    """A field's text cannot become an edit (bad JSON); shown next to the field."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class SurfaceEditor(widgets.VBox):
    """Edit the curated surfaces under ``<config>/surfaces/``.

    Args:
        session: The shared session (its config root locates the surfaces).
        surface: The surface directory name to show first.

    Example:
        >>> editor = SurfaceEditor(Session.from_config("config"))  # doctest: +SKIP
        >>> editor.select_tool("echo")  # doctest: +SKIP
        >>> editor.description.value = "Say the message back, word for word."  # doctest: +SKIP
        >>> editor.apply()["applied"]  # doctest: +SKIP
        [{'tool': 'echo', 'kind': 'description', 'value': 'Say the message back, ...'}]
    """

    def __init__(self, session: Session, surface: str | None = None, **kwargs: Any):
        names = sorted(p.parent.name for p in (session.root / "surfaces").glob("*/tools.json"))
        if not names:
            raise WorkbenchError(f"no surfaces in {session.root / 'surfaces'}; import one with "
                                 f"`workbench surface import`")
        self.session = session
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self.problems: dict[str, str] = {}
        self.last_outcome: dict[str, list[Any]] | None = None
        self._loading = False
        self._tools: list[dict[str, Any]] = []
        self._pins: dict[str, dict[str, Any]] = {}
        self._policy: dict[str, Any] = {}

        wide = widgets.Layout(width="40em")
        self.surface_select = widgets.Dropdown(options=names, value=surface or names[0],
                                               description="Surface")
        self.policy_label = widgets.HTML()
        self.tool_select = widgets.Dropdown(description="Tool")
        self.exposed = widgets.Checkbox(description="exposed to agents", indent=False)
        self.description = widgets.Textarea(description="Description",
                                            layout=widgets.Layout(width="40em", height="6em"))
        self.param_boxes: dict[str, widgets.Text] = {}
        self.params = widgets.VBox()
        self.examples = widgets.Textarea(description="Examples", layout=wide,
                                         placeholder='JSON list of arguments: [{"x": 1}]')
        self.schema = widgets.Textarea(description="Schema",
                                       layout=widgets.Layout(width="40em", height="10em"))
        self._problem_labels = {f: widgets.HTML() for f in _FIELDS}
        self.apply_button = widgets.Button(description="Apply", icon="check",
                                           button_style="primary",
                                           tooltip="Write the allowed edits to tools.json")
        self.revert_button = widgets.Button(description="Revert", icon="undo",
                                            tooltip="Reload the tool from tools.json")
        self.status = widgets.HTML()
        self.validity = widgets.HTML()
        self.score_label = widgets.HTML()
        #: The ranker of the live score: the best one installed (hybrid with the encoder
        #: extra, else bm25). Its embedding cache makes a one-tool edit re-embed one tool.
        self.score_selector = default_selector()
        self.score: float | None = None
        self.pending_score: float | None = None
        self.findings_output = widgets.Output()
        self.diff_output = widgets.Output()
        #: For the tool shown: each scenario's pin drift, one sentence each (see above).
        self.drift_notes: list[str] = []
        self.drift_label = widgets.HTML()

        labels = self._problem_labels
        super().__init__(children=[
            widgets.HBox([self.surface_select, self.policy_label]),
            widgets.HBox([self.tool_select, self.exposed, labels["exposed"]]),
            widgets.HBox([self.description, labels["description"]]),
            widgets.HBox([widgets.HTML("<b>Parameters</b>", layout=widgets.Layout(
                width="6em")), labels["params"]]),
            self.params,
            widgets.HBox([self.examples, labels["examples"]]),
            widgets.HBox([self.schema, labels["schema"]]),
            widgets.HBox([self.apply_button, self.revert_button, self.status]),
            self.validity,
            self.score_label,
            self.error_area,
            widgets.HTML("<b>Audit findings</b>"),
            self.findings_output,
            widgets.HTML("<b>Against the server's original</b>"),
            self.diff_output,
            self.drift_label,
        ], **kwargs)

        self.surface_select.observe(self._on_surface, names=["value"])
        self.tool_select.observe(self._on_tool, names=["value"])
        for field in (self.exposed, self.description, self.examples, self.schema):
            field.observe(self._on_edit, names=["value"])
        self.apply_button.on_click(self._on_apply)
        self.revert_button.on_click(self._on_revert)
        self._load_surface()

    # -- public API -------------------------------------------------------------------
    @property
    def dir(self) -> Path:
        """The surface directory being edited."""
        return self.session.root / "surfaces" / self.surface_select.value

    @property
    def tool(self) -> str:
        """The tool being edited."""
        return str(self.tool_select.value or "").removesuffix(_HIDDEN)

    def select_tool(self, name: str) -> None:
        """Show tool ``name`` (exposed, or hidden but pinned)."""
        for option in self.tool_select.options:
            if option.removesuffix(_HIDDEN) == name:
                self.tool_select.value = option
                return
        known = ", ".join(o.removesuffix(_HIDDEN) for o in self.tool_select.options)
        raise WorkbenchError(f"no tool named {name!r} in {self.dir}; tools: {known}")

    def pending_edits(self) -> list[dict[str, Any]]:
        """The edits the fields hold now, against tools.json (none when unchanged).

        Raises:
            WorkbenchError: a JSON field does not parse (the message names the field).
        """
        entry = self._entry()
        tool = self.tool
        if entry is None:  # hidden: only exposing it again is possible
            pin = self._pins.get(tool)
            if self.exposed.value:
                value = entry_from_wire(pin["wire"]) if pin else {}
                return [{"tool": tool, "kind": "add", "value": value}]
            return []
        if not self.exposed.value:
            return [{"tool": tool, "kind": "remove", "value": None}]
        edits: list[dict[str, Any]] = []
        if self.description.value != entry["description"]:
            edits.append({"tool": tool, "kind": "description", "value": self.description.value})
        props = entry["parameters"].get("properties") or {}
        patch = {p: {"description": box.value} for p, box in self.param_boxes.items()
                 if box.value != (props.get(p) or {}).get("description", "")}
        if patch:
            edits.append({"tool": tool, "kind": "params", "value": patch})
        examples = _parse_json(self.examples.value, "examples", default=[])
        if examples != entry.get("examples", []):
            edits.append({"tool": tool, "kind": "examples", "value": examples})
        schema = _parse_json(self.schema.value, "schema")
        if schema != entry["parameters"]:
            # Documentation-only changes are a params edit; anything else is a schema edit,
            # which the policy decides on (an external server's contract is not ours).
            kind = "schema" if not isinstance(schema, dict) or schema_changes(
                entry["parameters"], schema) else "params"
            edits.append({"tool": tool, "kind": kind, "value": schema})
        return edits

    def apply(self) -> dict[str, list[Any]]:
        """Apply the pending edits to tools.json under the surface's policy.

        Returns:
            ``{"applied": [...], "refused": [{"edit", "reason"}]}`` as
            :func:`workbench.surface.apply` gives it. Refused edits stay in their fields
            with the reason next to them; the file is untouched unless something applied.

        Raises:
            WorkbenchError: a field does not parse (nothing is written).
        """
        try:
            edits = self.pending_edits()
        except _Invalid as bad:
            self._set_problems({bad.field: bad.problem})
            raise WorkbenchError(f"{bad.field}: {bad.problem}; nothing was applied") from None
        outcome = apply(self.dir, edits) if edits else {"applied": [], "refused": []}
        self.last_outcome = outcome
        refused = _problems_of(outcome["refused"])
        keep = set(refused)
        tool = self.tool
        self._reload_files()
        removed = any(e["kind"] == "remove" for e in outcome["applied"])
        self._fill_tools(tool)
        self._load_tool(keep=keep)
        self._set_problems(refused)
        n_ok, n_no = len(outcome["applied"]), len(outcome["refused"])
        note = f"applied {n_ok} edit{'s' * (n_ok != 1)}"
        if n_no:
            note += f", refused {n_no} (see the reason next to the field)"
        if removed:
            note += f"; {tool} is hidden from agents"
        self._show_status(note)
        return outcome

    def revert(self) -> None:
        """Drop the edits in the fields and reload the tool from tools.json."""
        tool = self.tool
        self._reload_files()
        self._fill_tools(tool)
        self._load_tool()
        self._show_status("reloaded")

    # -- loading ----------------------------------------------------------------------
    def _reload_files(self) -> None:
        self._tools = load_tools(self.dir)
        self._policy = load_policy(self.dir)
        self._pins = {p["name"]: p for p in load_pins(self.dir)}
        self._tasks = self._load_tasks()

    def _load_tasks(self) -> Any:
        """The surface's own tasks.jsonl (None without one); a broken file is shown."""
        from workbench.selection.tasks import TASKS_FILE, load_tasks

        self._tasks_problem = ""
        if not (self.dir / TASKS_FILE).is_file():
            return None
        try:
            return load_tasks(self.dir / TASKS_FILE)
        except WorkbenchError as exc:
            self._tasks_problem = str(exc)
            return None

    def _score_of(self, tools: list[dict[str, Any]]) -> float | None:
        if not self._tasks:
            return None
        from workbench.selection.evaluate import evaluate
        from workbench.surface.scoring import entry_specs

        return evaluate(entry_specs(tools), self._tasks, selector=self.score_selector,
                        strict=False).top1

    def _show_score(self, pending: list[dict[str, Any]] | None = None) -> None:
        """The surface's selection score (top-1 on its tasks.jsonl), and the pending edit's."""
        self.score = self._score_of(self._tools)
        self.pending_score = self._score_of(pending) if pending is not None else None
        if self.score is None:
            problem = self._tasks_problem
            self.score_label.value = (
                f'<span style="color:{ERROR_COLOR}">{html.escape(problem)}</span>' if problem
                else "selection score: add a tasks.jsonl to this surface to measure it "
                     "(see <code>workbench eval</code>)")
            return
        text = (f"selection score ({self.score_selector} top-1 on {len(self._tasks)} tasks): "
                f"<b>{self.score:.3f}</b>")
        if self.pending_score is not None and self.pending_score != self.score:
            text += f" &rarr; <b>{self.pending_score:.3f}</b> with the pending edit"
        self.score_label.value = text

    def _load_surface(self) -> None:
        self._reload_files()
        policy = self._policy
        self.policy_label.value = (
            f"policy <code>{html.escape(policy['capability'])}</code>: allows "
            f"{html.escape(', '.join(policy['allow']) or 'nothing')}"
        )
        self._fill_tools(None)
        self._load_tool()

    def _fill_tools(self, keep: str | None) -> None:
        exposed = [t["name"] for t in self._tools]
        hidden = sorted(n for n in self._pins if n not in exposed)
        options = exposed + [n + _HIDDEN for n in hidden]
        self._loading = True
        try:
            self.tool_select.options = options
            match = [o for o in options if o.removesuffix(_HIDDEN) == keep]
            self.tool_select.value = match[0] if match else (options[0] if options else None)
        finally:
            self._loading = False

    def _entry(self) -> dict[str, Any] | None:
        return next((t for t in self._tools if t["name"] == self.tool), None)

    def _shown_pin(self) -> dict[str, Any] | None:
        """A hidden tool's pinned definition, as exposing it would show it."""
        pin = self._pins.get(self.tool)
        return entry_from_wire(pin["wire"]) if pin else None

    def _load_tool(self, keep: frozenset[str] | set[str] = frozenset()) -> None:
        """Fill the fields from tools.json, except the ``keep`` ones (refused edits)."""
        entry = self._entry()
        pin = self._pins.get(self.tool)
        shown = entry if entry is not None else (entry_from_wire(pin["wire"]) if pin else None)
        self._loading = True
        try:
            if "exposed" not in keep:
                self.exposed.value = entry is not None
            if shown is not None:
                if "description" not in keep:
                    self.description.value = shown["description"]
                if "examples" not in keep:
                    examples = shown.get("examples")
                    self.examples.value = json.dumps(examples) if examples else ""
                if "schema" not in keep:
                    self.schema.value = json.dumps(shown["parameters"], indent=2)
                if "params" not in keep:
                    self._build_params(shown["parameters"])
            for field in (self.description, self.examples, self.schema, *self.param_boxes.values()):
                field.disabled = entry is None  # a hidden tool can only be exposed again
        finally:
            self._loading = False
        self._set_problems({})
        self._show_findings(shown)
        self._show_diff(entry, pin)
        self._show_validity()
        self._show_score()

    def _build_params(self, parameters: dict[str, Any]) -> None:
        for box in self.param_boxes.values():
            box.unobserve(self._on_edit, names=["value"])
        self.param_boxes = {}
        for name, spec in (parameters.get("properties") or {}).items():
            spec = spec if isinstance(spec, dict) else {}
            box = widgets.Text(value=spec.get("description", ""), description=name,
                               layout=widgets.Layout(width="40em"),
                               tooltip=f"type: {spec.get('type', 'any')}")
            box.observe(self._on_edit, names=["value"])
            self.param_boxes[name] = box
        self.params.children = tuple(self.param_boxes.values())

    # -- display ----------------------------------------------------------------------
    def _set_problems(self, problems: dict[str, str]) -> None:
        self.problems = dict(problems)
        for field, label in self._problem_labels.items():
            label.value = problem_html(problems.get(field))

    def _show_status(self, note: str = "") -> None:
        self.status.value = html.escape(note)

    def _show_validity(self, pending: bool = False) -> None:
        report = validate(self.dir)
        # Validity is read from the files: with an edit pending, say so, not just "valid".
        note = (" <i>(tools.json as written: the pending edit is not applied yet; its audit "
                "is below)</i>") if pending else ""
        if report["ok"]:
            self.validity.value = (f'<span style="color:{OK_COLOR}">valid: {report["tools"]} '
                                   f"tools</span>{note}")
            return
        items = "".join(
            f"<li>{html.escape(str(p['tool']))}: {html.escape(p['field'])}: "
            f"{html.escape(p['problem'])}</li>" for p in report["problems"])
        self.validity.value = (f'<span style="color:{ERROR_COLOR}">invalid:</span>{note}'
                               f"<ul>{items}</ul>")

    def _show_findings(self, shown: dict[str, Any] | None,
                       pending: list[dict[str, Any]] | None = None) -> None:
        """The audit of the text agents read: the pending edit's when given, else the file's."""
        if shown is None:
            show(self.findings_output, "<p><i>no text to audit</i></p>")
            return
        tool = self.tool
        surface = self.surface_select.value
        if pending is not None:
            curated = [f for f in audit({surface: pending}) if f.tool == tool]
        else:
            curated = [f for f in audit({surface: self._tools}) if f.tool == tool]
            if self._entry() is None:  # hidden: audit what exposing it would show agents
                curated = audit({surface: [shown]})
        pin = self._pins.get(tool)
        original = audit({pin["server"]: [pin["wire"]]}) if pin else []
        parts: list[Any] = []
        where = "the pending edit (not applied yet)" if pending is not None else \
            "the text agents read"
        if curated:
            high = sum(f.severity == "high" for f in curated)
            colour = ERROR_COLOR if high else "inherit"
            parts.append(f'<p style="color:{colour}">{len(curated)} finding'
                         f"{'s' * (len(curated) != 1)} in {where} ({high} high)</p>")
            parts.append(table_html(findings_frame(curated), "wb-findings",
                                    wrap=("evidence",)))
        else:
            parts.append(f"<p><i>no findings in {where}</i></p>")
        if pin:
            worst = sum(f.severity == "high" for f in original)
            parts.append(f"<p>the server's original text: {len(original)} findings "
                         f"({worst} high)</p>")
        show(self.findings_output, *parts)

    def _show_drift(self, pin: dict[str, Any] | None) -> None:
        """Which scenarios over this surface do not name the server the tool is pinned to."""
        self.drift_notes = []
        if pin is not None:
            here = self.dir.resolve()
            for name, scenario in sorted(self.session.config.scenarios.items()):
                if (scenario.surface is None or not scenario.servers
                        or (self.session.root / scenario.surface).resolve() != here):
                    continue
                note = _unnamed_server(self.tool, pin["server"], name,
                                       [s.name for s in scenario.servers],
                                       surface_label(self.dir))
                if note is not None:
                    self.drift_notes.append(note)
        self.drift_label.value = "".join(
            f'<p style="color:{ERROR_COLOR}">{html.escape(n)}</p>' for n in self.drift_notes)

    def _show_diff(self, entry: dict[str, Any] | None, pin: dict[str, Any] | None) -> None:
        self._show_drift(pin)
        if pin is None:
            show(self.diff_output, "<p><i>no pin for this tool: import the surface from its "
                 "server (<code>workbench surface import</code>) to compare</i></p>")
            return
        import pandas as pd

        server = f"server ({pin['server']})"
        rows = [(field, a, b, "changed" if a != b else "")
                for field, a, b in _text_rows(entry_from_wire(pin["wire"]), entry)]
        frame = pd.DataFrame(rows, columns=["field", server, "curated", ""])
        show(self.diff_output, table_html(frame, "wb-diff", wrap=(server, "curated")))

    # -- callbacks --------------------------------------------------------------------
    @guarded
    def _on_surface(self, _change: dict[str, Any]) -> None:
        self._load_surface()

    @guarded
    def _on_tool(self, _change: dict[str, Any]) -> None:
        if not self._loading:
            self._load_tool()
            self._show_status()

    @guarded
    def _on_edit(self, _change: dict[str, Any]) -> None:
        if self._loading:
            return
        # Check the pending edits in memory, with the same function Apply uses.
        try:
            edits = self.pending_edits()
        except _Invalid as bad:
            self._set_problems({bad.field: bad.problem})
            self._show_status("not applied: fix the field")
            return
        pending, applied, refused = apply_edits(self._tools, edits, self._policy,
                                                list(self._pins.values()))
        self._set_problems(_problems_of(refused))
        self._show_score(pending if applied else None)
        # Audit what the pending edit would show agents, as the score measures it.
        if applied:
            entry = next((t for t in pending if t["name"] == self.tool), None)
            self._show_findings(entry or self._entry(), pending if entry else None)
        else:
            self._show_findings(self._entry() or self._shown_pin())
        self._show_validity(pending=bool(applied))
        parts = []
        if applied:
            parts.append(f"{len(applied)} edit{'s' * (len(applied) != 1)} to apply")
        if refused:
            parts.append(f"{len(refused)} the policy refuses")
        self._show_status(", ".join(parts))

    @guarded
    def _on_apply(self, _button: widgets.Button) -> None:
        self.apply()

    @guarded
    def _on_revert(self, _button: widgets.Button) -> None:
        self.revert()

    def __repr__(self) -> str:
        return (f"SurfaceEditor(surface={self.surface_select.value!r}, tool={self.tool!r}, "
                f"problems={sorted(self.problems)})")


def _unnamed_server(tool: str, pinned: str, scenario: str, servers: list[str],
                    surface: str) -> str | None:
    """The refusal ``scenario`` will give ``tool``, pinned to ``pinned``, or None if it names it.

    With one server, the one that offers the tool is known: the refusal is the run's own
    (:func:`~workbench.surface.pins.drift_detail`). With several, which offers it is not
    known without starting them.
    """
    if pinned in servers:
        return None
    lead = f"in scenario {scenario!r}, every call of {tool} is refused as pin drift: "
    if len(servers) == 1:
        return lead + drift_detail(tool, pinned, servers[0], ("server",), surface=surface)
    names = ", ".join(repr(s) for s in servers)
    return (lead + f"pinned to server {pinned!r}, which the scenario does not name (it names "
            f"{names}): name the server {pinned!r} in the scenario, or re-pin it to the "
            f"server that offers it with `workbench surface approve {surface} {tool} "
            f"--server <its command> --name <its name>`")


def _parse_json(text: str, field: str, default: Any = None) -> Any:
    if not text.strip() and default is not None:
        return default
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Invalid(field, f"not valid JSON: {exc.msg} (line {exc.lineno}, column "
                              f"{exc.colno})") from None


def _problems_of(refused: list[dict[str, Any]]) -> dict[str, str]:
    problems: dict[str, str] = {}
    for item in refused:
        edit = item["edit"]
        kind = edit.get("kind") if isinstance(edit, dict) else None
        field = _FIELD_OF_KIND.get(kind, "schema")
        problems[field] = f"refused: {item['reason']}"
    return problems


def _text_rows(original: dict[str, Any], curated: dict[str, Any] | None
               ) -> list[tuple[str, str, str]]:
    """(field, server's text, curated text) for the texts agents read."""
    cur = curated or {}
    rows = [("exposed", "yes", "yes" if curated is not None else "no (hidden)"),
            ("title", original.get("title", ""), cur.get("title", "") if curated else ""),
            ("description", original["description"], cur.get("description", ""))]
    a_props = original["parameters"].get("properties") or {}
    b_props = (cur.get("parameters") or {}).get("properties") or {}
    for name in sorted(set(a_props) | set(b_props)):
        rows.append((f"parameters.{name}", (a_props.get(name) or {}).get("description", ""),
                     (b_props.get(name) or {}).get("description", "")))
    examples = cur.get("examples")
    rows.append(("examples", "", json.dumps(examples) if examples else ""))
    return rows
