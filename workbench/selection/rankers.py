"""Selectors: given a query and the tools an agent is shown, which tool would be picked.

Rankers score every tool (:class:`BM25Selector`, :class:`EmbeddingSelector`); a
:class:`ModelSelector` asks a model, which picks one tool or none. Rankers score exactly
:func:`~workbench.agents.render.tool_text`, derived from the function definition a model
is sent, so a better description for the ranker is a better description for the model.

Example:
    >>> from workbench.tools.registry import ToolSpec
    >>> specs = [ToolSpec("get_time", "Read the clock in a timezone."),
    ...          ToolSpec("echo", "Repeat a message back.")]
    >>> BM25Selector().rank(["what time is it in Oslo"], specs)[0][0][0]
    'get_time'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from workbench.agents.render import tool_text
from workbench.errors import ConfigError, MissingDependency
from workbench.tools.registry import ToolSpec

__all__ = ["SELECTORS", "BM25Selector", "EmbeddingSelector", "ModelSelector", "Ranking",
           "Selector", "make_selector"]



# Letters and digits only: `get_current_time` is three words, as a person would read it.
_TOKEN = r"(?u)[^\W_]{2,}"


class Ranking(Sequence[tuple[str, float]]):
    """Tools with scores, best first (ties by name); a model selector's has one or none.

    A sequence of ``(tool, score)`` pairs, kept as an order over a shared list of names
    and an array of scores: ranking a thousand tools for a thousand queries builds no
    million tuples.
    """

    __slots__ = ("_names", "_order", "_scores")

    def __init__(self, names: Sequence[str] = (), scores: Sequence[float] = (),
                 order: Sequence[int] | None = None):
        self._names = names
        self._order = range(len(names)) if order is None else order
        self._scores = scores

    @classmethod
    def of(cls, pairs: Sequence[tuple[str, float]]) -> Ranking:
        """From ``(tool, score)`` pairs, sorted best first (ties by name)."""
        ordered = sorted(pairs, key=lambda pair: (-pair[1], pair[0]))
        return cls([n for n, _ in ordered], [float(s) for _, s in ordered])

    def __len__(self) -> int:
        return len(self._order)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        return self._names[self._order[index]], float(self._scores[index])

    def names(self, k: int | None = None) -> list[str]:
        """The first ``k`` tools (all when None)."""
        return [self._names[i] for i in self._order[:k]]

    def position(self, tool: str) -> int | None:
        """1-based rank of ``tool``, or None when it is not ranked."""
        try:
            index = list(self._names).index(tool)
        except ValueError:
            return None
        for rank, i in enumerate(self._order, 1):
            if i == index:
                return rank
        return None

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={s:.3g}" for n, s in self[:3])
        return f"Ranking({shown}{', ...' if len(self) > 3 else ''})"


class Selector(Protocol):
    """Ranks the tools for each query."""

    name: str

    def rank(self, queries: Sequence[str], specs: Sequence[ToolSpec]) -> list[Ranking]:
        """One ranking per query."""


def _rankings(names: Sequence[str], scores: Any) -> list[Ranking]:
    """One Ranking per row of the ``queries x tools`` score matrix (numpy sorts, ties by name)."""
    import numpy as np

    matrix = np.asarray(scores, dtype=float).reshape(-1, len(names))
    # Columns in name order first, so a stable sort by score leaves ties in name order.
    alphabetical = sorted(range(len(names)), key=names.__getitem__)
    shared = [names[i] for i in alphabetical]
    matrix = matrix[:, alphabetical]
    order = np.argsort(-matrix, axis=-1, kind="stable")
    ordered = np.take_along_axis(matrix, order, axis=-1)
    return [Ranking(shared, s, o) for o, s in zip(order, ordered, strict=True)]


class BM25Selector:
    """Okapi BM25 over each tool's shown text (`bm25s`), English stop words removed."""

    name = "bm25"

    def rank(self, queries: Sequence[str], specs: Sequence[ToolSpec]) -> list[Ranking]:
        """Score every tool for every query."""
        import bm25s

        names = [spec.name for spec in specs]
        corpus = bm25s.tokenize([tool_text(spec) for spec in specs], stopwords="en",
                                token_pattern=_TOKEN, show_progress=False)
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        import numpy as np

        vocab = corpus.vocab
        asked = bm25s.tokenize(list(queries), stopwords="en", token_pattern=_TOKEN,
                               return_ids=False, show_progress=False)
        matrix = np.zeros((len(queries), len(names)))
        for row, tokens in enumerate(asked):
            ids = [vocab[t] for t in tokens if t in vocab]
            if ids:
                matrix[row] = retriever.get_scores_from_ids(ids)
        return _rankings(names, matrix)


class EmbeddingSelector:
    """Cosine similarity of static word embeddings that ship inside the `wordllama` wheel.

    Loads offline (the weights are in site-packages; no download is ever tried).
    """

    name = "embedding"

    def __init__(self) -> None:
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            import logging

            root = logging.getLogger()
            level, handlers = root.level, list(root.handlers)
            try:
                import wordllama
                from wordllama import WordLlama
            except ImportError as exc:
                raise MissingDependency("wordllama", "eval") from exc
            finally:
                # wordllama calls logging.basicConfig(INFO) on import: give the root
                # logger back, or every library's INFO lines reach the user's terminal.
                root.setLevel(level)
                root.handlers[:] = handlers
            from pathlib import Path

            # The wheel ships its weights; a plain load() would look for a download.
            self._model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent,
                                         disable_download=True)
        return self._model

    def rank(self, queries: Sequence[str], specs: Sequence[ToolSpec]) -> list[Ranking]:
        """Score every tool for every query."""
        import numpy as np

        model = self._load()
        names = [spec.name for spec in specs]
        docs = model.embed([tool_text(spec) for spec in specs], norm=True)
        asked = model.embed(list(queries), norm=True)
        return _rankings(names, np.asarray(asked) @ np.asarray(docs).T)


class ModelSelector:
    """Ask a model: the tool of its first call, or none (an empty ranking).

    Args:
        model: An :class:`~workbench.agents.openai_model.OpenAIModel` (live, or replaying
            a cassette).
        system: The system message (the default asks it to pick a tool, or none).
    """

    name = "model"

    def __init__(self, model: Any, system: str | None = None):
        self.model = model
        self.system = system or ("You are choosing a tool for the user's request. Call the "
                                 "one tool that fits, with its arguments, or answer without "
                                 "calling any tool when none fits.")
        self.arguments: list[str | None] = []

    def rank(self, queries: Sequence[str], specs: Sequence[ToolSpec]) -> list[Ranking]:
        """One model call per query; the first tool call is the pick."""
        from workbench.agents.render import function_definitions, function_names

        tools = function_definitions(specs)
        by_wire = function_names(specs)
        rankings: list[Ranking] = []
        self.arguments = []
        for index, query in enumerate(queries):
            body = self.model.request_body(
                [{"role": "system", "content": self.system},
                 {"role": "user", "content": query}], tools)
            reply = self.model.complete(body, agent="selector", tick=index)
            call = reply.tool_calls[0] if reply.tool_calls else None
            tool = by_wire.get(call.name, call.name) if call is not None else None
            rankings.append(Ranking([tool], [1.0]) if tool is not None else Ranking())
            self.arguments.append(call.arguments if call is not None else None)
        return rankings


#: Selector names the CLI accepts.
SELECTORS = ("bm25", "embedding", "model")


def make_selector(name: str, **options: Any) -> Selector:
    """A selector by name (``model`` needs ``model=`` an OpenAIModel).

    Raises:
        ConfigError: an unknown name, or ``model`` without a model.
    """
    if name == "bm25":
        return BM25Selector()
    if name == "embedding":
        return EmbeddingSelector()
    if name == "model":
        if options.get("model") is None:
            raise ConfigError("--selector", "model", "needs a model: give --model NAME and "
                                                     "--model-url URL (or --cassette FILE)")
        return ModelSelector(options["model"])
    raise ConfigError("--selector", "", f"{name!r} is not a selector; allowed: "
                                        f"{', '.join(SELECTORS)}")
