"""How one call by hand reads on screen: its status line and what it answered.

The ToolCaller's outcome area: whether the call was refused, ran, or failed and how; the
content blocks (text as text, an image as the image, anything else as JSON) or the
structured content; the ledger row it made. A long result is folded, never printed whole.
"""

from __future__ import annotations

import html
import json
from typing import Any

from workbench.engine.hand_calls import CallOutcome
from workbench.frames import ledger_frame, long_text_html
from workbench.widgets.display import table_html

__all__ = ["outcome_html_parts", "outcome_status_html"]


def outcome_status_html(outcome: CallOutcome) -> str:
    """One line: refused, OK or failed (and how), who called what, over what, how long."""
    tool, agent = html.escape(outcome.tool), html.escape(outcome.agent)
    if outcome.denied:
        colour, head = "#b00020", f"Refused: {html.escape(outcome.reason or '')}"
    elif outcome.ok:
        colour, head = "#1b7e3c", "OK &middot; isError: false"
    elif outcome.is_error:
        colour, head = "#b00020", "The tool reported an error &middot; isError: true"
    else:
        colour, head = "#b00020", f"Failed: {html.escape(outcome.outcome)}"
    return (f'<div class="wb-call-status" style="color:{colour}"><b>{head}</b> &mdash; '
            f"{agent} &rarr; {tool} over {html.escape(outcome.transport)} in "
            f"{outcome.latency_ms:.1f} ms</div>")


def outcome_html_parts(outcome: CallOutcome) -> list[str]:
    """The message, the content or structured content, and the ledger row, as HTML parts."""
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
    return parts


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

