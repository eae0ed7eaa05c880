"""How widgets show things: Output writing, tables and problems, guarded callbacks.

Two rules of the widget layer live here so each widget does not reinvent them:

* Output widgets are written with ``outputs = ()`` followed by ``append_display_data``.
  That works headless (tests), in JupyterLab and under nbval; ``with out:`` captures
  nothing without a frontend and ``print`` inside a handler breaks strict nbval.
* A callback never swallows an exception. :func:`guarded` catches it, shows it in the
  widget's error area and keeps it on ``last_error`` for code (and tests) to inspect.
"""

from __future__ import annotations

import functools
import html
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import ipywidgets as widgets

from workbench.errors import WorkbenchError

__all__ = [
    "ERROR_COLOR",
    "OK_COLOR",
    "WARN_COLOR",
    "ErrorArea",
    "guarded",
    "problem_html",
    "show",
    "split_list",
    "table_html",
]

F = TypeVar("F", bound=Callable[..., Any])

# JupyterLab's theme colours (readable in light and dark themes), with light fallbacks.
OK_COLOR = "var(--jp-success-color1,#1b5e20)"
WARN_COLOR = "var(--jp-warn-color1,#8a6d00)"
ERROR_COLOR = "var(--jp-error-color1,#b00020)"


def show(output: widgets.Output, *objects: Any) -> None:
    """Replace what ``output`` shows with ``objects`` (strings become HTML paragraphs)."""
    from IPython.display import HTML

    output.outputs = ()
    for obj in objects:
        if isinstance(obj, str):
            obj = HTML(obj)
        output.append_display_data(obj)


def table_html(frame: Any, css: str, wrap: tuple[str, ...] = ()) -> str:
    """A DataFrame as an HTML table that reads well in JupyterLab (see ``frame_html``)."""
    from workbench.frames import frame_html

    return frame_html(frame, css, wrap)


def problem_html(problem: str | None) -> str:
    """The text of a problem label next to a field ("" when there is no problem)."""
    if not problem:
        return ""
    return f'<span class="wb-problem" style="color:{ERROR_COLOR}">{html.escape(problem)}</span>'


def split_list(text: str) -> list[str]:
    """``"a.b, c.d"`` -> ``["a.b", "c.d"]``: comma- or whitespace-separated, blanks dropped."""
    return [part for part in text.replace(",", " ").split() if part]


class ErrorArea(widgets.Output):
    """An Output that shows the last error a callback raised, until cleared.

    A :class:`~workbench.errors.WorkbenchError` is shown as its message, which already says
    what to do; anything else is a bug and is shown with its traceback.
    """

    def show_error(self, exc: BaseException) -> None:
        """Show ``exc`` in the area."""
        from IPython.display import HTML

        if isinstance(exc, WorkbenchError):
            text = str(exc)  # the message says what and what next; a class name says neither
        else:
            text = "".join(traceback.format_exception(exc)).rstrip()
        self.outputs = ()
        self.append_display_data(HTML(
            f'<pre class="wb-error" style="color:{ERROR_COLOR};white-space:pre-wrap">'
            f"{html.escape(text)}</pre>"
        ))

    def clear(self) -> None:
        """Remove the shown error."""
        self.outputs = ()

    def __repr__(self) -> str:
        return f"ErrorArea(showing={bool(self.outputs)})"


def guarded(method: F) -> F:
    """Decorate a widget callback so an exception is shown in the widget, not lost.

    The widget needs an ``error_area`` (:class:`ErrorArea`) and gets ``last_error``. A
    successful call clears the previous error. The exception is not re-raised: the
    widget framework would only log it where nobody looks.
    """

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            result = method(self, *args, **kwargs)
        except Exception as exc:  # shown, kept on last_error: never swallowed
            self.last_error = exc
            self.error_area.show_error(exc)
            return None
        self.last_error = None
        self.error_area.clear()
        return result

    return wrapper  # type: ignore[return-value]
