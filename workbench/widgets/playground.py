"""ChatPlayground: type a request, see the model's tool choice and what the registry made of it.

The widget over :class:`~workbench.engine.playground.Playground`. A person types a request
(or, replaying a cassette offline, picks one it recorded from *Recorded requests*) and
presses *Send*: the agent's model answers once, each tool call it makes goes through the
scenario's registry as the agent (grants, approval, pins, schema), and the output shows
the model's text, each call with its arguments and its outcome, and the ledger row it
made. The results are not sent back to the model: one model call per request.

A label says where answers come from: ``replaying PATH (MODEL)`` or ``live: URL``. Built
from code::

    pg = ChatPlayground.from_config("config", "oracle-grove", "fortune-teller",
                                    cassette="config/cassettes/real/playground.jsonl")
    pg.send("Read me an omen for the mill.")   # the turn, also shown
    calls_frame(pg.hand)                       # every call made here, as a run's
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from workbench.engine.playground import Playground, PlaygroundTurn, chat_model
from workbench.errors import ConfigError
from workbench.frames import long_text_html
from workbench.textsafe import clip, escape
from workbench.widgets.call_outcome import outcome_html_parts, outcome_status_html
from workbench.widgets.display import ERROR_COLOR, ErrorArea, guarded, show
from workbench.widgets.schema_fields import close_parts

if TYPE_CHECKING:
    from workbench.agents.cassette import Cassette

__all__ = ["SHOWN_TURNS", "ChatPlayground", "turn_html"]

#: Turns shown in the output, the latest last; ``playground.turns`` holds them all.
SHOWN_TURNS = 20
#: Characters of a recorded request shown in the dropdown (the whole text is its value).
_LABEL_CHARS = 90
#: A reply or arguments longer than this are folded behind a click.
_FOLD_AT = 4_000
_WHOLE = "pg.playground.turns holds every turn whole"


class ChatPlayground(widgets.VBox):
    """A request box, *Send*, and every turn: the model's text, its calls and their outcomes.

    Args:
        playground: The playground the requests go to.
        closer: Called by :meth:`close` (to stop the registry's servers).

    Attributes:
        playground: The engine playground (its ``turns``, ``registry``, ``model``).
        hand: Every call made here, on its ledger: ``calls_frame(pg.hand)``,
            ``ledger_frame(pg.hand)``.
        turn: The last turn, or None.
        last_error: The last exception a callback raised (shown in the error area).
    """

    def __init__(self, playground: Playground, *, closer: Callable[[], None] | None = None,
                 **kwargs: Any):
        self.playground = playground
        self.hand = playground.hand
        self.turn: PlaygroundTurn | None = None
        self.last_error: BaseException | None = None
        self._closer = closer
        self.error_area = ErrorArea()
        self.source_label = widgets.HTML(
            f'<div class="wb-pg-source">Answers: <b>{html.escape(escape(playground.source))}'
            f"</b> &middot; agent <b>{html.escape(playground.agent)}</b> &middot; results "
            f"are not sent back to the model (one model call per request)</div>")
        recorded = playground.recorded_requests()
        self.recorded = widgets.Dropdown(
            options=[("(pick a request the cassette can answer)", "")] + [
                (clip(escape(text), _LABEL_CHARS), text) for text in recorded],
            value="", description="Recorded requests", style={"description_width": "initial"},
            layout=widgets.Layout(width="48em"))
        if not (playground.model.cassette is not None and playground.model.cassette.replaying):
            self.recorded.layout.display = "none"  # live: anything may be asked
        self.request = widgets.Textarea(placeholder="Ask the agent for something",
                                        rows=3, layout=widgets.Layout(width="48em"))
        self.request.add_class("wb-pg-request")
        self.send_button = widgets.Button(description="Send", icon="paper-plane",
                                          button_style="primary")
        self.output = widgets.Output()
        super().__init__(children=[self.source_label, self.recorded, self.request,
                                   self.send_button, self.error_area, self.output], **kwargs)
        self.recorded.observe(self._on_recorded, names=["value"])
        self.send_button.on_click(self._on_send)

    @classmethod
    def from_config(cls, config_root: str | Path, scenario: str, agent: str, *,
                    cassette: str | Path | Cassette | None = None, url: str | None = None,
                    model: str | None = None, approve: Iterable[str] = (),
                    **kwargs: Any) -> ChatPlayground:
        """A playground for ``agent`` over ``scenario``'s registry, as a run builds it.

        Args:
            config_root: The config directory.
            scenario: The scenario whose registry (servers, surface) the calls go through.
            agent: The agent to ask as (its manifest's tools are the grants).
            cassette: A cassette file to replay (or a ``Cassette`` used as it is).
            url: An OpenAI-compatible API to ask live.
            model: The model's name (else the cassette's or the manifest's).
            approve: Tools approved (``TOOL`` or ``SERVER:TOOL``); every other call that
                needs approval is refused ``not approved``.
            **kwargs: For the widget (``layout``, ...).

        Raises:
            ConfigError: the config, scenario, agent, cassette or model cannot be had.
            ToolCallError: a scenario's server cannot be started.
        """
        from workbench.contracts.config import ConfigTree
        from workbench.engine.scenario_registry import scenario_registry
        from workbench.surface.approval import ApprovalPolicy

        tree = ConfigTree.load(config_root)
        chosen = tree.scenario(scenario)
        manifest = tree.agents.get(agent)
        if manifest is None:
            known = ", ".join(sorted(tree.agents)) or "none"
            raise ConfigError(tree.root / "agents", "", f"no agent named {agent!r}; known "
                              f"agents: {known}")
        chat = chat_model(manifest, cassette=cassette, url=url, model=model)  # before servers
        # The in-process built-ins, as the widgets' session has them (no MCP gate from the
        # environment); a scenario's servers are started, behind its surface, with approval.
        registry = scenario_registry(tree.root, chosen, approver=ApprovalPolicy(allow=approve),
                                     env={})
        resolver = registry.resolver
        closer = resolver.close if resolver is not None and hasattr(resolver, "close") else None
        try:
            return cls(Playground(registry, agent, manifest, chat), closer=closer, **kwargs)
        except BaseException:
            if closer is not None:
                closer()
            raise

    # -- public API -------------------------------------------------------------------
    def send(self, text: str | None = None) -> PlaygroundTurn:
        """Ask ``text`` (the request box's text when None) and show the turn.

        A model error (a cassette miss, a server gone) is a turn with its error shown.

        Raises:
            ConfigError: nothing to send.
        """
        if text is not None:
            self.request.value = text
        text = self.request.value
        if not text.strip():
            raise ConfigError("chat playground", "request", "type a request first"
                              + (", or pick a recorded one" if self.recorded.options[1:]
                                 else ""))
        self.turn = self.playground.ask(text)
        self._show_turns()
        return self.turn

    def close(self) -> None:
        """Close the widget and stop the registry's servers (safe to call twice)."""
        closer, self._closer = self._closer, None
        if closer is not None:
            closer()
        close_parts(self)
        super().close()

    def __repr__(self) -> str:
        return (f"ChatPlayground({self.playground.agent!r}, turns={len(self.playground.turns)},"
                f" calls={len(self.hand)})")

    # -- callbacks --------------------------------------------------------------------
    @guarded
    def _on_recorded(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.request.value = change["new"]

    @guarded
    def _on_send(self, _button: widgets.Button) -> None:
        self.send()

    def _show_turns(self) -> None:
        turns = self.playground.turns
        parts = [turn_html(turn) for turn in turns[-SHOWN_TURNS:]]
        if len(turns) > SHOWN_TURNS:
            parts.insert(0, f"<i>{len(turns) - SHOWN_TURNS} earlier turns are not shown: "
                            f"pg.playground.turns holds them.</i>")
        show(self.output, *parts)


def turn_html(turn: PlaygroundTurn) -> str:
    """One turn as HTML: the request, the model's text or error, each call and its outcome.

    Everything in it came from a person, a model or a tool, so all of it is escaped.
    """
    parts = ['<div class="wb-pg-turn" style="border-top:1px solid #ccc;margin-top:6px">',
             "<b>You asked</b>", _pre(turn.text, "wb-pg-text")]
    if turn.error is not None:
        parts.append(f'<pre class="wb-pg-error" style="color:{ERROR_COLOR};'
                     f'white-space:pre-wrap">{html.escape(escape(turn.error))}</pre>')
    if turn.reply_text is not None:
        parts += ["<b>The model said</b>", _pre(turn.reply_text, "wb-pg-reply")]
    elif turn.error is None:
        parts.append("<i>The model said nothing; it only called tools.</i>")
    if not turn.calls and turn.error is None:
        parts.append("<i>It called no tools.</i>")
    for number, (tool, params, outcome) in enumerate(turn.calls, 1):
        parts.append(f'<div class="wb-pg-call"><b>Call {number}: '
                     f"{html.escape(escape(tool))}</b> with")
        parts.append(_pre(json.dumps(params, indent=2, ensure_ascii=False), "wb-pg-args"))
        parts.append(outcome_status_html(outcome))
        parts.extend(outcome_html_parts(outcome))
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def _pre(text: str, css: str) -> str:
    """``text`` preformatted and escaped; a long one folded (frames.long_text_html)."""
    return (f'<pre class="{css}" style="white-space:pre-wrap;margin:2px 0">'
            f"{long_text_html(text, whole=_WHOLE, fold_at=_FOLD_AT, head=_FOLD_AT // 2)}</pre>")
