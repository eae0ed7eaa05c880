"""ToolCaller: call one tool by hand, as a chosen agent, and see everything it answered.

What the MCP Inspector does for a server, for the workbench's registry: pick where tools
come from (the in-process built-ins, the built-in MCP server, or a scenario's own servers
behind its curated surface), pick the agent to act as (its grants are shown, live from the
session, so an untick in the Manifests tab counts at once), pick a tool, fill the form
generated from its input schema, press *Call*. The call goes through the same registry,
grant check, guards and approval as a run; the result shows the content blocks or the
structured content, whether the tool reported an error (``isError``), and the ledger row
the call made. A refused call shows the refusal and is recorded as ``tool.denied``.

A tool the surface hides is listed too, marked *hidden*, so the refusal can be seen. A
tool an untrusted server offers needs approval, as in a run: tick *Approve this call*
(shown, with the reason, only for a tool that needs it). The caller shows only what
belongs to what is selected: choosing another source, agent or tool clears the last
outcome, and a tick given for one tool does not carry to the next.

What people reach for first in other inspectors is here too: *Arguments as JSON* takes the
arguments typed or pasted as raw JSON (an arguments object, a ``tools/call`` request, or an
OpenAI tool call, as an agent sent them) and sends them exactly, with only the registry's
check; *Past calls* loads a call made here back into the caller or re-sends it as it was;
*Copy as JSON* and *Copy as Python* give the selected call as a ``tools/call`` request or
as the line that makes it from code.

From code (a scripted notebook, a test)::

    caller = ToolCaller(session, source="watch-house", agent="timekeeper")
    outcome = caller.call({"timezone": "Europe/Oslo"}, tool="get_current_time",
                          approve=True)
    outcome.structured_content, outcome.event.kind
    caller.resend()                      # the same call again, exactly as it was sent
    print(caller.as_python())            # caller.call({...}, source=..., agent=..., tool=...)
"""

from __future__ import annotations

import html
import json
from typing import Any

import ipywidgets as widgets

from workbench.engine.hand_calls import CallOutcome, HandCalls
from workbench.errors import ConfigError, FormError, WorkbenchError
from workbench.tools.registry import ToolRegistry, ToolSpec
from workbench.widgets.call_outcome import outcome_html_parts, outcome_status_html
from workbench.widgets.display import ErrorArea, guarded, show
from workbench.widgets.ledger_view import LedgerView
from workbench.widgets.raw_call import parse_raw_call, python_call, tools_call_request
from workbench.widgets.schema_fields import close_parts
from workbench.widgets.schema_form import SchemaForm
from workbench.widgets.session import Session

__all__ = ["ToolCaller"]

#: Sources that are not a scenario's servers.
IN_PROCESS, BUILTIN_MCP = "in-process", "MCP"
_HIDDEN = " (hidden by curation)"
#: How the arguments are given: through the generated form, or as raw JSON.
FORM, JSON = "form", "json"


class ToolCaller(widgets.VBox):
    """Pick a tool, act as an agent, fill the generated form, call it, read the answer.

    Args:
        session: The shared session (its live manifests are the grants used).
        source: ``in-process``, ``MCP`` (the built-in server) or the name of a scenario
            with ``servers``; servers start when their source is first chosen.
        agent: The agent to act as (the first by name when None).
        tool: The tool to select first.

    Attributes:
        hand: Every call made, on its own ledger (``hand.ledger``), with telemetry; each is
            also added to the session's call history (``session.history``).
        outcome: The last call's :class:`~workbench.engine.hand_calls.CallOutcome`.
        form: The form of the selected tool.
    """

    def __init__(self, session: Session, source: str | None = None, agent: str | None = None,
                 tool: str | None = None, **kwargs: Any):
        if not session.manifests:
            raise ConfigError(session.root / "agents", "", "no agents; add a manifest first")
        self.session = session
        self.hand = HandCalls()
        self.outcome: CallOutcome | None = None
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self._registry: ToolRegistry | None = None
        self._hidden: dict[str, ToolSpec] = {}
        self.spec: ToolSpec | None = None
        self.form = SchemaForm()

        sources = [("in-process tools", IN_PROCESS), ("built-in MCP server", BUILTIN_MCP)]
        for name in sorted(session.config.scenarios):
            scenario = session.config.scenario(name)
            if scenario.servers:
                via = f" via {scenario.surface}" if scenario.surface else ""
                servers = ", ".join(s.name for s in scenario.servers)
                sources.append((f"{name}: {servers}{via}", name))
        wide = widgets.Layout(width="34em")
        self.source_select = widgets.Dropdown(options=sources, description="Tools from",
                                              layout=wide)
        self.agent_select = widgets.Dropdown(options=sorted(session.manifests),
                                             description="Act as", layout=wide)
        self.grants = widgets.HTML()
        self.tool_select = widgets.Dropdown(options=[], description="Tool", layout=wide)
        self.tool_info = widgets.HTML()
        self.args_mode = widgets.ToggleButtons(
            options=[("Form", FORM), ("Arguments as JSON", JSON)], value=FORM,
            style={"button_width": "auto"},
            tooltips=["Fill the form made from the tool's input schema",
                      "Type or paste the arguments as JSON (an arguments object, a "
                      "tools/call request or an OpenAI tool call); sent exactly as given"])
        self.raw_args = widgets.Textarea(
            placeholder='{"name": "value"}  (or a whole tools/call request)', rows=6,
            layout=widgets.Layout(width="48em"))
        self.raw_args.add_class("wb-raw-args")
        self.form_box = widgets.VBox([self.form])
        self.approve = widgets.Checkbox(
            value=False, description="Approve this call", indent=False,
            tooltip="An untrusted server's tools may change things, so a call needs approval; "
                    "without it the call is refused (not approved), as in a run")
        self.approval_note = widgets.HTML()
        self.call_button = widgets.Button(description="Call", icon="paper-plane",
                                          button_style="primary")
        self.copy_json = widgets.Button(description="Copy as JSON", icon="copy",
                                        tooltip="This call as a tools/call request")
        self.copy_python = widgets.Button(description="Copy as Python", icon="copy",
                                          tooltip="The line that makes this call from code")
        self.snippet = widgets.Textarea(rows=6, layout=widgets.Layout(width="48em",
                                                                      display="none"))
        self.snippet.add_class("wb-call-snippet")
        self.past = widgets.Dropdown(options=[], description="Past calls",
                                     layout=widgets.Layout(width="34em"))
        self.load_button = widgets.Button(description="Load", icon="upload",
                                          tooltip="Put this call's agent, tool and arguments "
                                                  "back in the caller")
        self.resend_button = widgets.Button(description="Re-send", icon="repeat",
                                            tooltip="Make this call again, with exactly the "
                                                    "arguments it was sent")
        self.status = widgets.HTML()
        self.result_output = widgets.Output()
        self.history = LedgerView(page_size=10)
        #: The source of each call made here, by its index in ``hand.outcomes``.
        self._sources: list[str] = []
        super().__init__(children=[
            self.source_select, self.agent_select, self.grants, self.tool_select,
            self.tool_info, self.args_mode, self.form_box,
            widgets.HBox([self.call_button, self.approve, self.approval_note]),
            widgets.HBox([self.copy_json, self.copy_python]), self.snippet,
            self.status, self.error_area, self.result_output,
            widgets.HBox([self.past, self.load_button, self.resend_button]),
            widgets.HTML("<b>Calls made here</b> (their own ledger)"), self.history,
        ], **kwargs)

        if source is not None:
            self._select(self.source_select, source, "source")
        if agent is not None:
            self._select(self.agent_select, agent, "agent")
        self.source_select.observe(self._on_source, names=["value"])
        self.agent_select.observe(self._on_agent, names=["value"])
        self.tool_select.observe(self._on_tool, names=["value"])
        self._switching = False
        self.args_mode.observe(self._on_mode, names=["value"])
        self.call_button.on_click(self._on_call)
        self.copy_json.on_click(self._on_copy_json)
        self.copy_python.on_click(self._on_copy_python)
        self.load_button.on_click(self._on_load)
        self.resend_button.on_click(self._on_resend)
        self._show_past()
        self._load_source()
        if tool is not None:
            self._select(self.tool_select, tool, "tool")

    # -- public API -------------------------------------------------------------------
    @property
    def registry(self) -> ToolRegistry:
        """The registry of the chosen source (servers start on first use)."""
        if self._registry is None:
            self._load_source()
        assert self._registry is not None
        return self._registry

    def refresh(self) -> None:
        """Read the source's tools again (after registering a tool, or editing a surface)."""
        tool = self.tool_select.value
        self._registry = None
        self._load_source()
        if tool in self.tool_select.options:
            self.tool_select.value = tool

    def select(self, *, source: str | None = None, agent: str | None = None,
               tool: str | None = None) -> None:
        """Choose the source, the agent and the tool, as a person would in the dropdowns.

        Raises:
            ConfigError: no such source, agent or tool (the message lists the choices).
        """
        if source is not None:
            self._select(self.source_select, source, "source")
        if agent is not None:
            self._select(self.agent_select, agent, "agent")
        if tool is not None:
            self._select(self.tool_select, tool, "tool")

    def call(self, values: dict[str, Any] | None = None, *, tool: str | None = None,
             agent: str | None = None, source: str | None = None,
             approve: bool | None = None, raw: str | None = None) -> CallOutcome:
        """Fill the form with ``values`` (or take ``raw`` JSON), call the tool, show the outcome.

        Args:
            values: The arguments, through the form; every field not named is emptied
                (None keeps the form).
            tool: Select this tool first.
            agent: Act as this agent.
            source: Take tools from this source.
            approve: Set the *Approve this call* tick.
            raw: The arguments as JSON text, sent exactly (switches to *Arguments as JSON*):
                an object, a ``tools/call`` request or an OpenAI tool call, whose tool is
                then selected.

        Returns:
            The outcome, also recorded on :attr:`hand` and shown.

        Raises:
            FormError: the form or the JSON cannot give the arguments (each field is named).
            ConfigError: an unknown source, agent or tool.
            ToolNotFound: the tool is granted but nothing offers it.
        """
        self.select(source=source, agent=agent, tool=tool)
        if self.spec is None:
            raise ConfigError("tool caller", "tool", "this source offers no tools")
        if raw is not None:
            self._set_mode(JSON)
            self.raw_args.value = raw
        elif values is not None:
            self._set_mode(FORM)
            self.form.fill(values)
        params = self.arguments()  # a pasted request may select another tool: before the tick
        if approve is not None:
            self.approve.value = approve
        return self._send(params)

    def arguments(self) -> dict[str, Any]:
        """The arguments as given: the form's values, or the raw JSON as typed.

        A raw ``tools/call`` request or OpenAI tool call selects the tool it names.

        Raises:
            FormError: a field cannot give its value, or the JSON is not an object.
            ConfigError: a pasted call names a tool this source does not offer.
        """
        if self.args_mode.value == FORM:
            return self.form.value
        tool, params = parse_raw_call(self.raw_args.value)
        if tool is not None and tool != self.spec_name:
            text = self.raw_args.value
            self._select(self.tool_select, tool, "tool")
            self.raw_args.value = text  # the paste stays as it was, under its tool
        return params

    @property
    def spec_name(self) -> str | None:
        """The selected tool's name (without the *hidden* mark), or None."""
        return self.spec.name if self.spec is not None else None

    def resend(self, index: int = -1) -> CallOutcome:
        """Make the call ``hand.outcomes[index]`` again: same source, agent, tool, arguments.

        The approval tick is not carried: a call that needs it needs a yes again.

        Raises:
            ConfigError: no call made here has that index.
        """
        past = self._past(index)
        self.select(source=self._sources[index], agent=past.agent, tool=past.tool)
        self._set_mode(JSON)
        self.raw_args.value = json.dumps(past.params, indent=2, ensure_ascii=False)
        return self._send(dict(past.params))

    def load(self, index: int = -1) -> None:
        """Put call ``hand.outcomes[index]`` back in the caller, to change it and call again.

        Its arguments go into the form when they fit it, else into *Arguments as JSON*.

        Raises:
            ConfigError: no call made here has that index.
        """
        past = self._past(index)
        self.select(source=self._sources[index], agent=past.agent, tool=past.tool)
        try:
            self.form.fill(past.params)
            self._set_mode(FORM)
        except FormError:
            self._set_mode(JSON)
            self.raw_args.value = json.dumps(past.params, indent=2, ensure_ascii=False)

    def as_json(self) -> str:
        """The selected call as a ``tools/call`` JSON-RPC request (what a host sends).

        Raises:
            FormError: the arguments cannot be read.
        """
        return tools_call_request(self.spec_name or "", self.arguments())

    def as_python(self) -> str:
        """The line that makes the selected call from code, with this caller.

        Raises:
            FormError: the arguments cannot be read.
        """
        return python_call(self.arguments(), source=self.source_select.value,
                           agent=self.agent_select.value, tool=self.spec_name or "",
                           approve=self.approve.value)

    def _send(self, params: dict[str, Any]) -> CallOutcome:
        assert self.spec is not None
        name = self.agent_select.value
        manifest = self.session.manifests[name]
        self._show_grants()
        from workbench.surface.approval import ApprovalPolicy

        policy = ApprovalPolicy(allow=["*"] if self.approve.value else [])
        previous, self.session.approver = self.session.approver, policy
        try:
            # A scenario's registry is rebuilt per call, as per run: a surface edited in
            # the Surfaces tab counts for the next call.
            registry = self._fresh_registry()
            outcome = self.hand.call(registry, name, manifest, self.spec.name, params)
        finally:
            self.session.approver = previous
        self.outcome = outcome
        self._sources.append(self.source_select.value)
        # The session's history holds every call, by a run or by hand (its History tab).
        self.session.history.record_outcome(outcome, source="hand")
        self._show_outcome(outcome)
        self._show_past()
        return outcome

    def _past(self, index: int) -> CallOutcome:
        try:
            return self.hand.outcomes[index]
        except IndexError:
            raise ConfigError("tool caller", "past call", f"no call {index} was made here "
                              f"({len(self.hand.outcomes)} so far)") from None

    # -- sources and tools --------------------------------------------------------------
    def _select(self, dropdown: widgets.Dropdown, value: str, what: str) -> None:
        if what == "tool" and value not in dropdown.options:
            self.refresh()  # registered since the list was read?
        values = [o[1] if isinstance(o, tuple) else o for o in dropdown.options]
        if value not in values and what == "tool" and value + _HIDDEN in values:
            value = value + _HIDDEN
        if value not in values:
            raise ConfigError("tool caller", what, f"{value!r} is not offered here; choose "
                              f"one of: {', '.join(map(str, values)) or 'none'}")
        dropdown.value = value

    def _fresh_registry(self) -> ToolRegistry:
        source = self.source_select.value
        if source in (IN_PROCESS, BUILTIN_MCP):
            return self.session.registry_for(source)
        return self.session.registry_for(BUILTIN_MCP, self.session.config.scenario(source))

    def _load_source(self) -> None:
        self._registry = self._fresh_registry()
        offered = self._registry.known_tools()
        self._hidden = {}
        inner = getattr(self._registry.resolver, "resolver", None)
        if inner is not None and hasattr(self._registry.resolver, "check"):
            # A curated surface: the server's other tools are hidden, and listed as such.
            for name in inner.tool_names():
                spec = inner.get_spec(name)
                if name not in offered and spec is not None:
                    self._hidden[name] = spec
        options = [*offered, *(name + _HIDDEN for name in sorted(self._hidden))]
        self.tool_select.options = options
        granted = set(self.session.manifests[self.agent_select.value].tools)
        first = next((o for o in options if o in granted), options[0] if options else None)
        self.tool_select.value = first
        self._show_tool()
        self._show_grants()

    def _show_tool(self) -> None:
        choice = self.tool_select.value
        if choice is None:
            self.spec = None
            self.tool_info.value = "<i>This source offers no tools.</i>"
            old, self.form = self.form, SchemaForm()
            old.close()
            self._show_args()
            self._show_approval(None)
            return
        hidden = choice.endswith(_HIDDEN)
        name = choice[: -len(_HIDDEN)] if hidden else choice
        # A yes is for the tool it was given to: another tool starts unapproved.
        self.approve.value = False
        spec = self._hidden[name] if hidden else self.registry.spec(name)
        self.spec = spec
        annotations = dict(spec.annotations or {})
        hints = ", ".join(f"{k}: {json.dumps(v)}" for k, v in sorted(annotations.items()))
        where = self.registry.transport_of(name) if not hidden else "hidden by the surface"
        title = f"<b>{html.escape(spec.title)}</b> &middot; " if spec.title else ""
        self.tool_info.value = (
            f'<div class="wb-tool-info" style="margin-left:6em;max-width:60em">{title}'
            f"<code>{html.escape(name)}</code> ({html.escape(where)})<br>"
            f'<span style="white-space:pre-wrap">{html.escape(spec.description)}</span>'
            + (f"<br><small>hints: {html.escape(hints)}</small>" if hints else "") + "</div>")
        old, self.form = self.form, SchemaForm(spec.input_schema)
        old.close()
        self._show_args()
        self._show_approval(None if hidden else spec)

    def _show_args(self) -> None:
        """The form, or the raw JSON box (starting from what the form holds)."""
        if self.args_mode.value == FORM:
            self.form_box.children = [self.form]
            return
        try:
            self.raw_args.value = json.dumps(self.form.value, indent=2, ensure_ascii=False)
        except FormError:
            self.raw_args.value = "{}"
        self.form_box.children = [self.raw_args]

    def _show_approval(self, spec: ToolSpec | None) -> None:
        """The *Approve this call* tick, only for a tool whose calls need a yes."""
        why = self._approval_reason(spec) if spec is not None else None
        self.approve.layout.display = None if why else "none"
        self.approval_note.value = (
            f'<span class="wb-approval-why" style="opacity:0.75">needs approval: '
            f"{html.escape(why)}</span>" if why else "")

    def _approval_reason(self, spec: ToolSpec) -> str | None:
        from workbench.surface.approval import ApprovalGuard

        for guard in self.registry.guards:
            if isinstance(guard, ApprovalGuard):
                return guard.needs_approval(spec)[2]
        return None

    def _show_grants(self) -> None:
        name = self.agent_select.value
        grants = self.session.manifests[name].tools
        offered = set(self.registry.known_tools())
        parts = []
        for tool in grants:
            if tool in offered:
                parts.append(f"<code>{html.escape(tool)}</code>")
            else:
                why = "hidden here" if tool in self._hidden else "not offered here"
                parts.append(f'<code style="opacity:0.6">{html.escape(tool)}</code> '
                             f"<i>({why})</i>")
        listed = ", ".join(parts) or "<i>none: every call will be refused</i>"
        self.grants.value = (f'<div class="wb-grants" style="margin-left:6em">Grants of '
                             f"<b>{html.escape(name)}</b>: {listed}</div>")

    # -- the outcome ----------------------------------------------------------------------
    def _show_outcome(self, outcome: CallOutcome) -> None:
        self.status.value = outcome_status_html(outcome)
        show(self.result_output, *outcome_html_parts(outcome))
        self.history.show(self.hand)
        self.history.go_to(self.history.page_count - 1)

    # -- callbacks ------------------------------------------------------------------------
    def _forget_outcome(self) -> None:
        """Clear the shown outcome: it was another agent's, tool's or source's call."""
        self.status.value = ""
        self.result_output.outputs = ()
        self.error_area.clear()
        self.snippet.value = ""
        self.snippet.layout.display = "none"

    @guarded
    def _on_source(self, _change: dict[str, Any]) -> None:
        self._forget_outcome()
        self._registry = None
        self._load_source()

    @guarded
    def _on_agent(self, _change: dict[str, Any]) -> None:
        self._forget_outcome()
        self._show_grants()

    @guarded
    def _on_tool(self, _change: dict[str, Any]) -> None:
        self._forget_outcome()
        self._show_tool()

    def _set_mode(self, mode: str) -> None:
        """Switch between the form and raw JSON from code: nothing is carried over."""
        self._switching = True
        try:
            self.args_mode.value = mode
        finally:
            self._switching = False
        self._show_args()

    @guarded
    def _on_mode(self, change: dict[str, Any]) -> None:
        if self._switching:
            return
        # A person switching to the form takes the JSON along when it fits the form.
        if change["new"] == FORM and change["old"] == JSON and self.spec is not None:
            try:
                _, params = parse_raw_call(self.raw_args.value)
                self.form.fill(params)
            except FormError:
                text = self.raw_args.value
                self._set_mode(JSON)
                self.raw_args.value = text  # the JSON stays as typed; the error says why
                raise
        self._show_args()

    @guarded
    def _on_call(self, _button: widgets.Button) -> None:
        try:
            self.call()
        except WorkbenchError:
            self.status.value = ""
            raise

    @guarded
    def _on_copy_json(self, _button: widgets.Button) -> None:
        self._show_snippet(self.as_json())

    @guarded
    def _on_copy_python(self, _button: widgets.Button) -> None:
        self._show_snippet(self.as_python())

    def _show_snippet(self, text: str) -> None:
        # A widget cannot reach the clipboard: the text is shown whole, to select and copy.
        self.snippet.value = text
        self.snippet.rows = min(20, text.count("\n") + 2)
        self.snippet.layout.display = None

    @guarded
    def _on_load(self, _button: widgets.Button) -> None:
        if self.past.value is not None:
            self.load(self.past.value)

    @guarded
    def _on_resend(self, _button: widgets.Button) -> None:
        if self.past.value is not None:
            self.resend(self.past.value)

    def _show_past(self) -> None:
        outcomes = self.hand.outcomes
        self.past.options = [
            (f"#{i + 1} {o.agent} → {o.tool} ({o.outcome})", i) for i, o in enumerate(outcomes)]
        self.past.value = len(outcomes) - 1 if outcomes else None
        self.load_button.disabled = self.resend_button.disabled = not outcomes

    def close(self) -> None:
        """Close the caller and every widget in it (the session's servers stay open)."""
        close_parts(self)
        super().close()

    def __repr__(self) -> str:
        return (f"ToolCaller(source={self.source_select.value!r}, "
                f"agent={self.agent_select.value!r}, tool={self.tool_select.value!r}, "
                f"calls={len(self.hand)})")
