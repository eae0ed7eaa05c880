"""Command-line arguments checked where they are parsed, each refusal one line.

:class:`OneLineParser` is the parser of every ``workbench`` command (sub-commands inherit
it): a bad flag is one ``error: ...`` line naming the command and the flag, exit code 2,
never the usage block. The argument types below refuse what no command can use (a
negative tick count, an infinite wait, a port beyond 65535, a server command line with
unbalanced quotes) before any work starts.

Example:
    >>> seconds("1.5")
    1.5
    >>> seconds("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'inf' is not a finite number of seconds >= 0 (e.g. 0.5)
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, NoReturn

__all__ = ["OneLineParser", "count", "host", "port", "seconds", "server_target"]


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and which never guesses abbreviations.

    ``--tick 2`` is an error, not a silent ``--ticks 2``: a flag means exactly what it says.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print ``error: PROG: MESSAGE (see PROG --help)`` and exit with code 2."""
        line = " ".join(f"error: {self.prog}: {message}".split())
        print(f"{line} (see `{self.prog} --help`)", file=sys.stderr)
        self.exit(2)


def count(text: str) -> int:
    """A whole number >= 0 (ticks, counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 0 "
                                         f"(e.g. 5)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give a whole number >= 0")
    return value


def seconds(text: str) -> float:
    """A finite number of seconds >= 0 (inf, nan and negatives are refused)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds >= 0 "
                                         f"(e.g. 0.5)")
    return value


def port(text: str) -> int:
    """A TCP port from 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port; give a number from 1 to "
                                         f"65535 (e.g. 8765)")
    return value


def host(text: str) -> str:
    """A non-empty interface name or address."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give an interface such as 127.0.0.1")
    return text.strip()


def server_target(text: str) -> str:
    """An http(s) URL or a stdio command line that splits into words (balanced quotes)."""
    from workbench.contracts.scenario import split_command

    target = text.strip()
    if target.startswith(("http://", "https://")):
        return target
    try:
        split_command(target)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}; or give an http(s) URL") from None
    return target
