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
tool an untrusted server offers needs approval, as in a run: tick *Approve this call*.
The caller shows only what belongs to what is selected: choosing another source, agent or
tool clears the last outcome, and a tick given for one tool does not carry to the next.

From code (a scripted notebook, a test)::

    caller = ToolCaller(session, source="watch-house", agent="timekeeper")
    outcome = caller.call({"timezone": "Europe/Oslo"}, tool="get_current_time",
                          approve=True)
    outcome.structured_content, outcome.event.kind
"""

from __future__ import annotations

import html
import json
from typing import Any

import ipywidgets as widgets

from workbench.engine.hand_calls import CallOutcome, HandCalls
from workbench.errors import ConfigError, WorkbenchError
from workbench.frames import ledger_frame, long_text_html
from workbench.tools.registry import ToolRegistry, ToolSpec
from workbench.widgets.display import ErrorArea, guarded, show, table_html
from workbench.widgets.ledger_view import LedgerView
from workbench.widgets.schema_fields import close_parts
from workbench.widgets.schema_form import SchemaForm
from workbench.widgets.session import Session

__all__ = ["ToolCaller"]

#: Sources that are not a scenario's servers.
IN_PROCESS, BUILTIN_MCP = "in-process", "MCP"
_HIDDEN = " (hidden by curation)"


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
        self.form_box = widgets.VBox([self.form])
        self.approve = widgets.Checkbox(
            value=False, description="Approve this call", indent=False,
            tooltip="An untrusted server's tools may change things, so a call needs approval; "
                    "without it the call is refused (not approved), as in a run")
        self.call_button = widgets.Button(description="Call", icon="paper-plane",
                                          button_style="primary")
        self.status = widgets.HTML()
        self.result_output = widgets.Output()
        self.history = LedgerView(page_size=10)
        super().__init__(children=[
            self.source_select, self.agent_select, self.grants, self.tool_select,
            self.tool_info, self.form_box,
            widgets.HBox([self.call_button, self.approve]),
            self.status, self.error_area, self.result_output,
            widgets.HTML("<b>Calls made here</b> (their own ledger)"), self.history,
        ], **kwargs)

        if source is not None:
            self._select(self.source_select, source, "source")
        if agent is not None:
            self._select(self.agent_select, agent, "agent")
        self.source_select.observe(self._on_source, names=["value"])
        self.agent_select.observe(self._on_agent, names=["value"])
        self.tool_select.observe(self._on_tool, names=["value"])
        self.call_button.on_click(self._on_call)
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
             approve: bool | None = None) -> CallOutcome:
        """Fill the form with ``values`` (when given), call the tool, show the outcome.

        Args:
            values: The arguments; every field not named is emptied (None keeps the form).
            tool: Select this tool first.
            agent: Act as this agent.
            source: Take tools from this source.
            approve: Set the *Approve this call* tick.

        Returns:
            The outcome, also recorded on :attr:`hand` and shown.

        Raises:
            FormError: the form cannot give the arguments (each field is named).
            ConfigError: an unknown source, agent or tool.
            ToolNotFound: the tool is granted but nothing offers it.
        """
        self.select(source=source, agent=agent, tool=tool)
        if self.spec is None:
            raise ConfigError("tool caller", "tool", "this source offers no tools")
        if values is not None:
            self.form.fill(values)
        if approve is not None:
            self.approve.value = approve
        params = self.form.value
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
        # The session's history holds every call, by a run or by hand (its History tab).
        self.session.history.record_outcome(outcome, source="hand")
        self._show_outcome(outcome)
        return outcome

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
            self.form_box.children = [self.form]
            old.close()
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
        self.form_box.children = [self.form]
        old.close()

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
        tool, agent = html.escape(outcome.tool), html.escape(outcome.agent)
        if outcome.denied:
            colour, head = "#b00020", f"Refused: {html.escape(outcome.reason or '')}"
        elif outcome.ok:
            colour, head = "#1b7e3c", "OK &middot; isError: false"
        elif outcome.is_error:
            colour, head = "#b00020", "The tool reported an error &middot; isError: true"
        else:
            colour, head = "#b00020", f"Failed: {html.escape(outcome.outcome)}"
        self.status.value = (
            f'<div class="wb-call-status" style="color:{colour}"><b>{head}</b> &mdash; '
            f"{agent} &rarr; {tool} over {html.escape(outcome.transport)} in "
            f"{outcome.latency_ms:.1f} ms</div>")
        parts: list[str] = []
        if outcome.message:
            parts.append(_pre(outcome.message, "wb-call-message"))
        if outcome.content is not None:
            parts.append("<b>content</b>")
            parts.extend(_block_html(block) for block in outcome.content)
        if outcome.structured_content is not None:
            parts.append("<b>structuredContent</b>")
            parts.append(_pre(json.dumps(outcome.structured_content, indent=2,
                                         ensure_ascii=False), "wb-call-structured"))
        parts.append("<b>ledger row</b>")
        parts.append(table_html(ledger_frame([outcome.event]).drop(columns=["hash"]),
                                "wb-call-ledger", wrap=("summary", "payload")))
        show(self.result_output, *parts)
        self.history.show(self.hand)
        self.history.go_to(self.history.page_count - 1)

    # -- callbacks ------------------------------------------------------------------------
    def _forget_outcome(self) -> None:
        """Clear the shown outcome: it was another agent's, tool's or source's call."""
        self.status.value = ""
        self.result_output.outputs = ()
        self.error_area.clear()

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

    @guarded
    def _on_call(self, _button: widgets.Button) -> None:
        try:
            self.call()
        except WorkbenchError:
            self.status.value = ""
            raise

    def close(self) -> None:
        """Close the caller and every widget in it (the session's servers stay open)."""
        close_parts(self)
        super().close()

    def __repr__(self) -> str:
        return (f"ToolCaller(source={self.source_select.value!r}, "
                f"agent={self.agent_select.value!r}, tool={self.tool_select.value!r}, "
                f"calls={len(self.hand)})")


#: A result or message longer than this (about fifty lines) is folded behind a click.
_FOLD_AT = 4_000
#: Where a folded value is whole, said when even the expanded text is cut.
_WHOLE = "caller.outcome holds it, and Export below writes the calls made here"


def _pre(text: str, css: str) -> str:
    """``text`` as preformatted; a long one folded (frames.long_text_html), never in full."""
    return (f'<pre class="{css}" style="white-space:pre-wrap;margin:2px 0">'
            f"{long_text_html(text, whole=_WHOLE, fold_at=_FOLD_AT, head=_FOLD_AT // 2)}</pre>")


def _block_html(block: dict[str, Any]) -> str:
    """One MCP content block: text as text, an image as the image, anything else as JSON."""
    kind = block.get("type")
    if kind == "text":
        return _pre(str(block.get("text", "")), "wb-call-text")
    if kind == "image" and isinstance(block.get("data"), str):
        mime = html.escape(str(block.get("mimeType", "image/png")), quote=True)
        return (f'<img class="wb-call-image" alt="image content" style="max-width:20em" '
                f'src="data:{mime};base64,{html.escape(block["data"], quote=True)}">')
    return _pre(json.dumps(block, indent=2, ensure_ascii=False), "wb-call-block")
