"""The ``openai`` backend: OpenAI-compatible Chat Completions with tool calling.

One wire format reaches hosted APIs and local servers (Ollama, vLLM, llama.cpp's server,
LM Studio). :class:`OpenAIModel` makes one model call at a time with the maintained
``openai`` client (an optional extra, imported on first live call) and turns every way a
call can fail into a :class:`~workbench.errors.ModelError` with a clear message. The tool
loop that drives it over a turn is :mod:`workbench.agents.tool_loop`.

Retries live here and only here: the client is built with ``max_retries=0`` and 429 and
5xx answers are retried ``max_retries`` times with doubling waits (a server's
``Retry-After`` is honoured up to :data:`MAX_WAIT` seconds), so the bound in the manifest
is the bound that holds and each attempt is counted in the calls log.

Each attempt is bounded on the wire (:mod:`workbench.agents.wire`): ``model.timeout`` is
a deadline for the whole request, however the server paces its bytes, and a reply past
``WORKBENCH_MODEL_REPLY_BYTES`` is refused after reading at most that much. What comes
back is read by :mod:`workbench.agents.replies`, where every malformed or oversized
reply becomes one ``model_error`` naming what was wrong.

With a :class:`~workbench.agents.cassette.Cassette` the model records each exchange, or
answers from the cassette without any network (replay). The API key is read from the
environment variable the manifest names at the first live call and passed to the client;
a server that sends it back finds it redacted (:mod:`workbench.agents.secrets`) from the
reply as soon as it is read, and from the whole exchange before a cassette line is
written, so no ledger, calls log, cassette, transcript or error message ever holds it.

Example:
    >>> from workbench.contracts.manifest import ModelSpec
    >>> m = OpenAIModel(ModelSpec(backend="openai", model="llama3.2",
    ...                           base_url="http://127.0.0.1:11434/v1"))
    >>> m.request_body([{"role": "user", "content": "hi"}], [])["model"]
    'llama3.2'
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.agents.models import ModelReply, ModelRequest, ToolCallRequest
from workbench.agents.render import function_definitions, function_names
from workbench.agents.replies import (
    ChatReply,
    ChatToolCall,
    as_recorded,
    decode_reply,
    parse_reply,
)
from workbench.agents.secrets import Redactor
from workbench.agents.wire import REPLY_BYTES_ENV, bounded, bounded_http_client, reply_bytes
from workbench.contracts.manifest import AgentManifest, ModelSpec
from workbench.errors import CassetteMiss, ConfigError, MissingDependency, ModelError
from workbench.textsafe import escape

if TYPE_CHECKING:
    from workbench.agents.base import ManifestAgent, Turn
    from workbench.agents.cassette import Cassette

# ChatReply, ChatToolCall and parse_reply live in replies.py; they are re-exported here.
__all__ = ["MAX_WAIT", "REPLAY_URL", "ChatReply", "ChatToolCall", "OpenAIModel", "models_for_run",
           "models_with_cassette", "parse_reply"]

#: The longest wait between two attempts, whatever a server's Retry-After asks (seconds).
MAX_WAIT = 20.0
#: The address of a model built only to replay (:meth:`OpenAIModel.replaying`): never
#: contacted, a port nothing listens on.
REPLAY_URL = "http://127.0.0.1:9/v1"
#: Shown for ``base_url`` when the manifest leaves it to the client's default.
DEFAULT_URL = "https://api.openai.com/v1"
#: Live clients by (base URL, key, timeout), shared by every run of this process: a client
#: costs tens of milliseconds to make (TLS context, connection pool) and keeps its
#: connections open. Held in memory only, like the key itself.
_CLIENTS: dict[tuple[str | None, str, float], Any] = {}
#: Characters of a server's error message kept in a ModelError (it goes on the ledger).
_DETAIL_CHARS = 300


class OpenAIModel:
    """A model behind an OpenAI-compatible Chat Completions endpoint.

    Args:
        spec: The manifest's ``model`` (backend ``openai``).
        base_url: Overrides ``spec.base_url`` (``--model-url``).
        model: Overrides ``spec.model`` (``--model``).
        cassette: Record every exchange to it, or replay from it.
        env: Where the API key variable is read (``os.environ`` when None).
    """

    backend = "openai"

    def __init__(self, spec: ModelSpec, *, base_url: str | None = None,
                 model: str | None = None, cassette: Cassette | None = None,
                 env: Mapping[str, str] | None = None):
        self.spec = spec
        self.model = model or spec.model or ""
        self.base_url = base_url or spec.base_url
        self.cassette = cassette
        self._env = env
        self._client: Any = None
        #: The reply byte cap, read now so a bad WORKBENCH_MODEL_REPLY_BYTES is one
        #: ConfigError before the run, not a failure in every turn.
        self.reply_bytes = reply_bytes(env)

    @classmethod
    def replaying(cls, path: str | Path) -> OpenAIModel:
        """A model that answers only from the cassette at ``path``, as it was recorded.

        The cassette's provenance says what the recording sent: the model's name
        (``alias``), the reply cap (``max_tokens``) and the parser of calls written in
        text. Nothing is ever sent: a request the cassette lacks is a
        :class:`~workbench.errors.CassetteMiss`.

        Raises:
            ConfigError: the cassette is missing, malformed, or says no ``alias``.
        """
        from workbench.agents.cassette import Cassette

        tape = Cassette(path, "replay")
        alias = tape.provenance.get("alias")
        if not isinstance(alias, str) or not alias:
            raise ConfigError(path, "provenance.alias", "the cassette does not say which "
                              "model name its requests sent; re-record it")
        return cls(ModelSpec(backend="openai", model=alias, base_url=REPLAY_URL),
                   cassette=tape)

    def __repr__(self) -> str:
        mode = f", cassette={self.cassette.mode}" if self.cassette is not None else ""
        return f"OpenAIModel({self.model!r} at {self.url}{mode})"

    @property
    def url(self) -> str:
        """The API address calls go to."""
        return self.base_url or DEFAULT_URL

    @property
    def max_steps(self) -> int:
        """Model calls one turn may take."""
        return self.spec.max_steps

    @property
    def text_calls(self) -> str | None:
        """The parser of tool calls written in text: the manifest's, else the cassette's.

        A cassette recorded from a model that writes its calls as text says so in its
        provenance, so a replay reads the replies as the recording did.
        """
        if self.spec.tool_calls_in_text is not None:
            return self.spec.tool_calls_in_text
        from workbench.agents.text_calls import PARSERS

        recorded = self._recorded("tool_calls_in_text")
        return recorded if recorded in PARSERS else None

    @property
    def max_tokens(self) -> int | None:
        """The reply cap sent: the manifest's, else the one its cassette was recorded with.

        A recording may cap replies its manifest leaves open (a small local model runs on
        to the end of its context); the cassette's provenance says so, and a replay sends
        the same cap, so its requests are the ones recorded.
        """
        if self.spec.max_tokens is not None:
            return self.spec.max_tokens
        recorded = self._recorded("max_tokens")
        return recorded if type(recorded) is int and recorded > 0 else None

    def _recorded(self, key: str) -> Any:
        """What the cassette's provenance says of ``key`` (None without a cassette)."""
        return self.cassette.provenance.get(key) if self.cassette is not None else None

    def redactor(self) -> Redactor:
        """What is taken out of everything this model's server sends: its API key."""
        return Redactor([self._api_key()])

    # -- one call ---------------------------------------------------------------------
    def request_body(self, messages: Sequence[Mapping[str, Any]],
                     tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The canonical request: what is sent, fingerprinted and recorded."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages),
                                "temperature": self.spec.temperature}
        if self.spec.seed is not None:
            body["seed"] = self.spec.seed
        cap = self.max_tokens
        if cap is not None:
            body["max_tokens"] = cap
        if tools:
            body["tools"] = list(tools)
        return body

    def complete(self, body: dict[str, Any], *, agent: str, tick: int) -> ChatReply:
        """Make one model call (or answer it from the cassette).

        The request is fingerprinted and recorded redacted; the reply is read, checked
        and redacted before anything else sees it, and a reply that fails the checks is
        recorded as the error it raised, so a replay fails the same way.

        Raises:
            ModelError: the call failed after retries, or the reply is unusable.
            CassetteMiss: replaying, and the cassette holds no such request.
        """
        redact = self.redactor()
        cassette = self.cassette
        recorded = redact.value(body)  # the key is never in a cassette, not even hashed
        started = time.perf_counter()
        if cassette is not None and cassette.replaying:
            exchange = cassette.lookup(recorded, agent, tick)
            try:
                if "error" in exchange:
                    raise ModelError(exchange["error"]["kind"], exchange["error"]["message"])
                reply = parse_reply(exchange["response"], redact, self.text_calls)
            except CassetteMiss:
                raise
            except ModelError as exc:
                raise ModelError(exc.kind, redact.text(exc.message)) from None
            reply.telemetry.update(source="cassette", attempts=0,
                                   latency_ms=(time.perf_counter() - started) * 1000.0)
            return reply
        try:
            data, content_type, attempts = self._post(body)
            response = redact.value(decode_reply(data, content_type))
            reply = parse_reply(response, redact, self.text_calls)
        except ModelError as exc:
            failed = ModelError(exc.kind, redact.text(exc.message))
            if cassette is not None:
                cassette.record(recorded, agent, tick,
                                error={"kind": failed.kind, "message": failed.message})
            raise failed from None
        if cassette is not None:
            cassette.record(recorded, agent, tick, response=as_recorded(response, reply))
        reply.telemetry.update(source="record" if cassette is not None else "live",
                               attempts=attempts,
                               latency_ms=(time.perf_counter() - started) * 1000.0)
        return reply

    def _post(self, body: dict[str, Any]) -> tuple[bytes, str | None, int]:
        """The body and content type of a 200, and the attempts it took."""
        client = self._live_client()  # first: it explains a missing extra
        import openai

        retries, backoff = self.spec.max_retries, self.spec.retry_backoff
        for attempt in range(retries + 1):
            with bounded(self.spec.timeout, self.reply_bytes) as budget:
                try:
                    raw = client.chat.completions.with_raw_response.create(**body)
                    http = raw.http_response
                    return http.content, http.headers.get("content-type"), attempt + 1
                except openai.APIStatusError as exc:
                    status = exc.status_code
                    if (status == 429 or status >= 500) and attempt < retries:
                        wait = _wait(exc.response.headers.get("retry-after"), backoff, attempt)
                    else:
                        raise ModelError("model_error",
                                         self._status_message(exc, attempt + 1)) from None
                except openai.APIConnectionError as exc:  # timeouts are one kind of it
                    raise self._wire_error(exc, budget) from None
            time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _wire_error(self, exc: Any, budget: Any) -> ModelError:
        """What a request that did not get a whole answer failed of."""
        import openai

        if budget.exceeded == "bytes":
            return ModelError("model_error", f"the reply from {self.url} is over "
                              f"{budget.limit} bytes; it was refused after reading "
                              f"{budget.read} (raise {REPLY_BYTES_ENV} if a real reply is "
                              f"this long)")
        if budget.exceeded == "deadline" or isinstance(exc, openai.APITimeoutError):
            return ModelError("timeout", f"no complete answer from {self.url} within "
                              f"{self.spec.timeout:g} s (model.timeout, a deadline for the "
                              f"whole request)")
        return ModelError("connection_error", escape(
            f"cannot reach {self.url}: {exc.__cause__ or exc}; is the server running, and "
            f"is base_url (or --model-url) right?"))

    def _status_message(self, exc: Any, attempts: int) -> str:
        detail = ""
        body = getattr(exc, "body", None)
        if isinstance(body, Mapping):
            error = body.get("error", body)
            detail = error.get("message", "") if isinstance(error, Mapping) else str(error)
        text = f"HTTP {exc.status_code} from {self.url}"
        if attempts > 1:
            text += f" after {attempts} attempts"
        if detail:
            detail = str(detail)
            cut = detail[:_DETAIL_CHARS] + ("..." if len(detail) > _DETAIL_CHARS else "")
            text += f": {escape(cut)}"
        if exc.status_code in (401, 403):
            text += (f" (the API key comes from the environment variable "
                     f"{self.spec.api_key_env})")
        return text

    def _api_key(self) -> str | None:
        env = os.environ if self._env is None else self._env
        return env.get(self.spec.api_key_env) or None

    def _live_client(self) -> Any:
        if self._client is None:
            try:
                import openai
            except ImportError as exc:
                raise MissingDependency("openai", "model") from exc
            # Local servers ignore the key, but the client will not start without one;
            # a hosted API answers 401 to the placeholder, and the message names the
            # variable to set.
            key = (self.base_url, self._api_key() or "not-set", self.spec.timeout)
            if key not in _CLIENTS:
                _CLIENTS[key] = openai.OpenAI(base_url=key[0], api_key=key[1],
                                              timeout=key[2], max_retries=0,
                                              http_client=bounded_http_client(openai))
            self._client = _CLIENTS[key]
        return self._client

    # -- the Model protocol and the tool loop -----------------------------------------
    def converse(self, agent: ManifestAgent, turn: Turn, system: str) -> str | None:
        """Run one turn's tool loop (see :func:`workbench.agents.tool_loop.converse`)."""
        from workbench.agents.tool_loop import converse

        return converse(self, agent, turn, system)

    def respond(self, request: ModelRequest) -> ModelReply:
        """One call outside a run: the prompt as system message, the tools offered.

        Tool calls are returned, not made (outside a run there is no registry here).
        """
        body = self.request_body([{"role": "system", "content": request.prompt}],
                                 function_definitions(request.tools))
        reply = self.complete(body, agent=request.agent, tick=0)
        names = function_names(request.tools)
        calls = tuple(ToolCallRequest(names.get(call.name, call.name), call.params())
                      for call in reply.tool_calls)
        return ModelReply(reply.text, calls)


def _wait(retry_after: str | None, backoff: float, attempt: int) -> float:
    try:
        asked = float(retry_after) if retry_after is not None else None
    except ValueError:  # an HTTP date: fall back to our own schedule
        asked = None
    return min(asked if asked is not None else backoff * 2 ** attempt, MAX_WAIT)


def models_for_run(manifests: Iterable[AgentManifest], *, cassette: Cassette | None = None,
                   base_url: str | None = None, model: str | None = None
                   ) -> dict[str, OpenAIModel]:
    """An :class:`OpenAIModel` per ``openai`` agent, sharing one cassette and overrides.

    Agents of other backends are left out (the conductor gives them their own models).
    """
    return {m.name: OpenAIModel(m.model, base_url=base_url, model=model, cassette=cassette)
            for m in manifests if m.model.backend == "openai"}


def models_with_cassette(manifests: Iterable[AgentManifest], models: Mapping[str, Any] | None,
                         cassette: Any, mode: str = "auto", base_url: str | None = None,
                         model: str | None = None) -> tuple[dict[str, Any], Cassette | None]:
    """What ``Conductor.from_config`` gives a run's agents: models and the open cassette.

    ``cassette`` is a path (opened here in ``mode``) or a :class:`Cassette`; models given
    explicitly win over the ``openai`` models made here.
    """
    from workbench.agents.cassette import Cassette

    tape = cassette if cassette is None or isinstance(cassette, Cassette) else \
        Cassette(cassette, mode)
    made = models_for_run(manifests, cassette=tape, base_url=base_url, model=model)
    return {**made, **(models or {})}, tape
