"""Redaction: the model key taken out of whatever a model server sends back.

The API key goes to the server in the ``Authorization`` header and nowhere else, but a
server can send it back: echoed in an error, in the reply's text, in tool-call arguments
(JSON text that may spell it with escapes), in the model name or the response id. A
:class:`Redactor` replaces every occurrence with :data:`MASK`. The ``openai`` backend
scrubs at the source, as soon as a reply is read and before a cassette line is written,
so the ledger, the calls log, cassettes, transcripts, frames, exports and the printed
table only ever receive scrubbed text. Redacting the key also covers the whole
``Authorization`` value (``Bearer <key>`` becomes ``Bearer ***``).

A key shorter than :data:`MIN_SECRET_CHARS` is not treated as a secret: local servers
are often given a word (``ollama``, ``none``, ``local``), and masking every occurrence of
that word in a run's text would damage the record while protecting nothing. Any key a
hosted API issues is far longer.

Redaction catches the key as it is spelt, and arguments once parsed; it cannot catch a
server that encodes the key some other way (base64, reversed), which no scrubber can.

Example:
    >>> r = Redactor(["sk-live-0123456789"])
    >>> r.text("your key sk-live-0123456789 is wrong")
    'your key *** is wrong'
    >>> r.value({"seed": ["sk-live-0123456789", 3]})
    {'seed': ['***', 3]}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["MASK", "MIN_SECRET_CHARS", "Redactor"]

#: What a secret is replaced by: the same mask the error messages have always used.
MASK = "***"
#: The shortest key treated as a secret (see the module docstring for why words are not).
MIN_SECRET_CHARS = 8


class Redactor:
    """Replaces known secrets in text and in JSON values.

    Args:
        secrets: The secrets; None, empty and too-short entries are ignored.

    Attributes:
        secrets: The secrets redacted, longest first (so a secret that contains another
            is masked whole).
    """

    def __init__(self, secrets: Iterable[str | None] = ()):
        found = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_CHARS}
        self.secrets = tuple(sorted(found, key=lambda s: (-len(s), s)))

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def __repr__(self) -> str:  # never the secrets themselves
        return f"Redactor({len(self.secrets)} secret(s))"

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by :data:`MASK`."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def found_in(self, text: str) -> bool:
        """True when ``text`` holds a secret."""
        return any(secret in text for secret in self.secrets)

    def value(self, value: Any) -> Any:
        """A JSON value with every string (keys included) redacted.

        Returns ``value`` itself when it holds no secret, so the common case copies
        nothing. The walk uses its own stack: a deeply nested value cannot exhaust
        Python's.
        """
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, dict | list):
            return value
        if not self._holds_secret(value):
            return value
        return self._rebuild(value)

    def _holds_secret(self, value: Any) -> bool:
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if self.found_in(item):
                    return True
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return False

    def _rebuild(self, value: Any) -> Any:
        """A redacted copy of a dict or list, built without recursion."""
        root: list[Any] = [None]
        # (container to fill, key or index in it, the original value)
        stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
        while stack:
            target, slot, item = stack.pop()
            if isinstance(item, dict):
                copy: Any = {}
                target[slot] = copy
                for key, child in item.items():
                    new_key = self.text(key) if isinstance(key, str) else key
                    copy[new_key] = None
                    stack.append((copy, new_key, child))
            elif isinstance(item, list):
                copy = [None] * len(item)
                target[slot] = copy
                stack.extend((copy, i, child) for i, child in enumerate(item))
            elif isinstance(item, str):
                target[slot] = self.text(item)
            else:
                target[slot] = item
        return root[0]
