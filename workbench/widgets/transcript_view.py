r"""TranscriptView: one agent's conversation with its model at one tick.

A run's ``openai`` agents leave a transcript per turn (:attr:`RunResult.transcripts`):
the system and user messages, each reply with its tool calls, and the ``tool`` messages
that carried results, errors and refusals back. The view shows one of them at a time,
picked by agent and tick, as HTML; control characters a server hid in a description
(ANSI escapes, bidi overrides, zero-width marks) are shown as visible escapes (``\x1b``).
Nothing else is kept in the widget's state: no API key ever reaches a transcript.
"""

from __future__ import annotations

import html
import unicodedata
from typing import Any

import ipywidgets as widgets

from workbench.frames import long_text_html
from workbench.widgets.display import ErrorArea, guarded

__all__ = ["TranscriptView", "transcript_html"]

#: A message longer than this (about thirty lines) is folded behind a click.
_FOLD_AT = 2_000
#: Where a folded message is whole (said when even the expanded text is cut).
_WHOLE = "the run's transcripts hold it (result.transcripts)"

_ROLE_COLOURS = {"system": "#555", "user": "#1a5fb4", "assistant": "#26a269",
                 "tool": "#9141ac"}


def _visible(text: str) -> str:
    """``text`` with every control or format character (newlines aside) as an escape."""
    out = []
    for c in text:
        if c != "\n" and unicodedata.category(c) in ("Cc", "Cf"):
            out.append(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return "".join(out)


def _folded(text: str) -> str:
    return long_text_html(text, whole=_WHOLE, fold_at=_FOLD_AT, head=_FOLD_AT // 2)


def transcript_html(messages: list[dict[str, Any]]) -> str:
    """The conversation as HTML: one block per message, tool calls and results shown."""
    blocks = []
    for msg in messages:
        role = msg.get("role", "?")
        head = f'<b style="color:{_ROLE_COLOURS.get(role, "#000")}">{html.escape(role)}</b>'
        if role == "tool":
            head += f" <code>{html.escape(str(msg.get('tool_call_id')))}</code>"
        parts = [head]
        if msg.get("content"):
            # A tool's result can be a page long: folded past a few lines, never in full.
            parts.append('<pre style="white-space:pre-wrap;margin:2px 0">'
                         f"{_folded(_visible(str(msg['content'])))}</pre>")
        for call in msg.get("tool_calls") or ():
            fn = call.get("function") or {}
            arguments = _folded(_visible(str(fn.get("arguments"))))
            parts.append(f"<div>&rarr; <code>{html.escape(str(call.get('id')))}</code> "
                         f"<code>{html.escape(_visible(str(fn.get('name'))))}"
                         f"({arguments})</code></div>")
        blocks.append('<div class="wb-message" style="border-left:3px solid '
                      f'{_ROLE_COLOURS.get(role, "#000")};padding-left:6px;margin:4px 0">'
                      + "".join(parts) + "</div>")
    return "".join(blocks) or "<p><i>No messages.</i></p>"


class TranscriptView(widgets.VBox):
    """Pick an agent and a tick; read that turn's conversation with the model.

    Args:
        result: A :class:`~workbench.engine.conductor.RunResult` (or None: empty).

    Example:
        >>> view = TranscriptView(result)  # doctest: +SKIP
        >>> view.select("clerk", 1)  # doctest: +SKIP
    """

    def __init__(self, result: Any = None, **kwargs: Any):
        self.last_error: BaseException | None = None
        self.error_area = ErrorArea()
        self._transcripts: list[dict[str, Any]] = []
        self.agent = widgets.Dropdown(options=[], description="Agent")
        self.tick = widgets.Dropdown(options=[], description="Tick")
        self.body = widgets.HTML()
        super().__init__(children=[widgets.HBox([self.agent, self.tick]), self.body,
                                   self.error_area], **kwargs)
        self.agent.observe(self._on_agent, names=["value"])
        self.tick.observe(self._on_tick, names=["value"])
        self.show(result)

    def show(self, result: Any) -> None:
        """Show the transcripts of ``result`` (the first agent's first turn selected)."""
        self._transcripts = list(getattr(result, "transcripts", None) or [])
        agents = sorted({t["agent"] for t in self._transcripts})
        self.agent.options = agents
        self.agent.value = agents[0] if agents else None
        self._refresh_ticks()

    def select(self, agent: str, tick: int) -> None:
        """Show ``agent``'s conversation at ``tick``.

        Raises:
            ValueError: that agent had no conversation at that tick.
        """
        if agent not in self.agent.options:
            raise ValueError(f"no transcript for agent {agent!r}; agents with one: "
                             f"{', '.join(self.agent.options) or 'none'}")
        self.agent.value = agent
        if tick not in self.tick.options:
            raise ValueError(f"{agent} talked to its model at ticks "
                             f"{list(self.tick.options)}, not at tick {tick}")
        self.tick.value = tick

    def conversation(self) -> list[dict[str, Any]]:
        """The shown turn's messages (every turn of that agent in that tick, in order)."""
        return [m for t in self._transcripts
                if t["agent"] == self.agent.value and t["tick"] == self.tick.value
                for m in t["messages"]]

    def text(self) -> str:
        """The shown conversation as plain text, one line per message or call."""
        lines = []
        for msg in self.conversation():
            content = msg.get("content")
            if content:
                lines.append(f"{msg['role']}: {_visible(str(content))}")
            for call in msg.get("tool_calls") or ():
                fn = call["function"]
                lines.append(f"{msg['role']} -> {call['id']} {fn['name']}({fn['arguments']})")
        return "\n".join(lines)

    def _refresh_ticks(self) -> None:
        ticks = sorted({t["tick"] for t in self._transcripts if t["agent"] == self.agent.value})
        self.tick.options = ticks
        self.tick.value = ticks[0] if ticks else None
        self._render()

    def _render(self) -> None:
        self.body.value = transcript_html(self.conversation()) if self._transcripts else \
            "<p><i>No model conversations in this run (no openai agents acted).</i></p>"

    @guarded
    def _on_agent(self, _change: dict[str, Any]) -> None:
        self._refresh_ticks()

    @guarded
    def _on_tick(self, _change: dict[str, Any]) -> None:
        self._render()

    def __repr__(self) -> str:
        return (f"TranscriptView(turns={len(self._transcripts)}, agent={self.agent.value!r}, "
                f"tick={self.tick.value!r})")

