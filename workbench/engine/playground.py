"""The chat playground's core: one request to a model, its tool calls through the registry.

A person types a request; :class:`Playground` sends it to the agent's model as one Chat
Completions request, exactly as a run would render the agent's granted tools
(:mod:`workbench.agents.render`), and sends every tool call the model makes through the
registry by hand (:class:`~workbench.engine.hand_calls.HandCalls`): the grant check, the
approval guard, pins and the schema apply as in a run, and each call or refusal lands on
the hand ledger as ``tool.called`` or ``tool.denied``. So what a model *chooses* can be
seen, and what the registry *lets through*, one request at a time.

The model is live (an OpenAI-compatible URL) or replays a cassette: a replay answers only
the requests recorded, and anything else comes back as a turn whose ``error`` says so,
never as a traceback. The results are not sent back to the model: one model call per
:meth:`Playground.ask` (the tool loop of a run, :mod:`workbench.agents.tool_loop`, is
what goes on talking).

Replies are untrusted and reach here already checked by
:mod:`workbench.agents.replies` (caps on the number of calls, on the arguments' size and
depth; secrets redacted). Arguments that are not a JSON object never reach the registry:
the call is recorded as a run records it, ``tool.called`` with a ``tool_error`` and the text
the model wrote.

Example:
    >>> from workbench.agents.openai_model import OpenAIModel
    >>> from workbench.contracts.manifest import AgentManifest, ModelSpec
    >>> from workbench.tools.defaults import default_tool_registry
    >>> seer = AgentManifest(name="seer", role="worker", tools=["oracle"])
    >>> model = OpenAIModel(ModelSpec(backend="openai", model="m",
    ...                               base_url="http://127.0.0.1:9/v1"))
    >>> pg = Playground(default_tool_registry(env={}), "seer", seer, model)
    >>> [t["function"]["name"] for t in pg.request_for("Read me an omen.")["tools"]]
    ['oracle']
    >>> pg.ask("Read me an omen.").error  # doctest: +SKIP
    'connection_error: cannot reach http://127.0.0.1:9/v1: ...'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.agents.cassette import fingerprint
from workbench.agents.render import function_definitions, function_names
from workbench.agents.tool_loop import read_arguments
from workbench.engine.hand_calls import CallOutcome, HandCalls
from workbench.errors import CassetteMiss, ConfigError, ModelError, ToolNotFound
from workbench.textsafe import clip, escape
from workbench.tools.registry import ToolRegistry, ToolSpec

if TYPE_CHECKING:
    from pathlib import Path

    from workbench.agents.cassette import Cassette
    from workbench.agents.openai_model import ChatToolCall, OpenAIModel
    from workbench.contracts.manifest import AgentManifest

__all__ = ["USE_TOOLS", "Playground", "PlaygroundTurn", "chat_model",
           "default_system"]

#: The line the default system message adds to the persona.
USE_TOOLS = ("Use your tools when the request needs them, with arguments that fit their "
             "parameters.")

#: One call of a turn: the tool, the arguments sent, and what came of it.
PlaygroundCall = tuple[str, dict[str, Any], CallOutcome]


@dataclass(frozen=True)
class PlaygroundTurn:
    """One request typed, the model's answer, and the calls it made through the registry.

    Attributes:
        text: What the person typed.
        request: The Chat Completions body sent (or looked up in the cassette).
        reply_text: The model's text (None when it only called tools, or failed).
        calls: ``(tool, arguments, outcome)`` per call the model made, in its order;
            arguments that were not a JSON object are ``{}``, the call recorded as failed.
        error: ``"kind: message"`` when the model call failed (a cassette miss
            included), or the turn stopped at a tool nothing offers; None otherwise.
    """

    text: str
    request: dict[str, Any] = field(repr=False)
    reply_text: str | None = None
    calls: tuple[PlaygroundCall, ...] = ()
    error: str | None = None

    def __repr__(self) -> str:
        # The text is a person's and the reply a server's: escaped and clipped, never whole.
        calls = ", ".join(f"{escape(tool)}: {outcome.reason or outcome.outcome}"
                          for tool, _, outcome in self.calls)
        error = f", error={clip(escape(self.error), 80)!r}" if self.error else ""
        return f"PlaygroundTurn({clip(escape(self.text), 60)!r}, calls=[{calls}]{error})"


def default_system(manifest: AgentManifest) -> str:
    """The system message of a playground request: who the agent is, and use your tools."""
    persona = f" {manifest.persona.strip()}" if manifest.persona.strip() else ""
    return f"You are {manifest.name}, a {manifest.role}.{persona}\n{USE_TOOLS}"


def chat_model(manifest: AgentManifest, *, cassette: str | Path | Cassette | None = None,
               url: str | None = None, model: str | None = None) -> OpenAIModel:
    """The model a playground asks: replaying ``cassette``, or live at ``url``.

    The manifest's own ``openai`` settings are kept (temperature, seed, caps, the text-call
    parser: a replay must send the very request recorded); any other backend gets an
    ``openai`` model with the defaults. The model's name is ``model``, else, replaying,
    the one the cassette's provenance says its requests sent (``alias``) or the recorded
    requests name (what their fingerprints hold), else the manifest's (a reply cap the
    provenance records is sent as :attr:`OpenAIModel.max_tokens` says).

    Args:
        manifest: The agent's manifest.
        cassette: A cassette file to replay, or a :class:`Cassette` used as it is (one
            opened to record, with ``url``, records what is asked live).
        url: The OpenAI-compatible API to ask live (``.../v1``).
        model: The model's name.

    Raises:
        ConfigError: neither a cassette nor a URL (nor an ``openai`` manifest), both a
            cassette file and a URL, no model name, a bad URL, or no such cassette.
    """
    from workbench.agents.cassette import Cassette
    from workbench.agents.openai_model import OpenAIModel
    from workbench.contracts.manifest import ModelSpec

    where = f"agent {manifest.name}"
    own = manifest.model if manifest.model.backend == "openai" else None
    if cassette is not None and not isinstance(cassette, Cassette):
        if url is not None:
            raise ConfigError(where, "url", "give a cassette to replay or a URL to ask live, "
                              "not both (to record what is asked live, pass "
                              "Cassette(path, mode='record') with the URL)")
        cassette = Cassette(cassette, mode="replay")
    if cassette is None and url is None and own is None:
        raise ConfigError(where, "model", f"the agent's model is {manifest.model.backend!r}, "
                          f"not a chat model: give a cassette to replay or the URL of an "
                          f"OpenAI-compatible API (url='http://127.0.0.1:11434/v1')")
    recorded = [e["request"].get("model") for e in cassette.entries] \
        if cassette is not None else []
    made = cassette.provenance if cassette is not None else {}
    name = model or next((m for m in [made.get("alias"), *recorded]
                          if isinstance(m, str) and m), None) or (own.model if own else None)
    if not name:
        raise ConfigError(where, "model", "no model name: give one (model='llama3.2')")
    settings = own.model_dump() if own is not None else {"backend": "openai"}
    settings.update(model=name, base_url=url or (own.base_url if own else None))
    try:
        spec = ModelSpec.model_validate(settings)
    except ValueError as exc:  # pydantic's ValidationError: a bad URL, said once
        errors = exc.errors() if hasattr(exc, "errors") else [{"msg": str(exc)}]
        raise ConfigError(where, "url", str(errors[0]["msg"]).removeprefix(
            "Value error, ")) from None
    return OpenAIModel(spec, cassette=cassette)


class Playground:
    """Ask an agent's model one request at a time; its tool calls go through the registry.

    Args:
        registry: The registry every call goes through (grants, guards, schema).
        agent: The agent's name (who the calls are made as).
        manifest: The agent's manifest: its ``tools`` are the grants.
        model: The model, live against a URL or replaying a cassette.
        hand: The ledger the calls land on (a new one when None).
        system: The system message (:func:`default_system` when None).

    Attributes:
        hand: Every call made, on its ledger (``calls_frame(pg.hand)`` reads it).
        turns: Every turn asked, in order.
    """

    def __init__(self, registry: ToolRegistry, agent: str, manifest: AgentManifest,
                 model: OpenAIModel, *, hand: HandCalls | None = None,
                 system: str | None = None):
        self.registry = registry
        self.agent = agent
        self.manifest = manifest
        self.model = model
        self.hand = hand if hand is not None else HandCalls("playground")
        self.system = system if system is not None else default_system(manifest)
        self.turns: list[PlaygroundTurn] = []

    def __repr__(self) -> str:
        return (f"Playground({self.agent!r}, tools={list(self.manifest.tools)}, "
                f"model={self.model.model!r}, turns={len(self.turns)})")

    @property
    def source(self) -> str:
        """Where answers come from: ``replaying PATH (MODEL)`` or ``live: URL``."""
        cassette = self.model.cassette
        if cassette is not None and cassette.replaying:
            made = cassette.provenance.get("model")
            return f"replaying {cassette.path}" + (f" ({made})" if made else "")
        recording = f", recording to {cassette.path}" if cassette is not None else ""
        return f"live: {self.model.url}{recording}"

    def tools(self) -> list[ToolSpec]:
        """The granted tools the registry can describe: what the model is offered."""
        return self.registry.describe(self.manifest.tools)

    def request_for(self, text: str, specs: list[ToolSpec] | None = None) -> dict[str, Any]:
        """The Chat Completions body :meth:`ask` sends for ``text``."""
        specs = self.tools() if specs is None else specs
        messages = [{"role": "system", "content": self.system},
                    {"role": "user", "content": text}]
        return self.model.request_body(messages, function_definitions(specs))

    def recorded_requests(self) -> list[str]:
        """Replaying: what a person can ask, the texts whose exact request the cassette holds.

        A recorded request whose system message, tools or model differ from what this
        playground would send (another agent, a tool description edited since) is left
        out: the cassette could not answer it here.
        """
        cassette = self.model.cassette
        if cassette is None or not cassette.replaying:
            return []
        specs = self.tools()
        redact = self.model.redactor()
        found: list[str] = []
        for entry in cassette.entries:
            text = _user_text(entry.get("request"))
            if text is None or text in found:
                continue
            # The cassette answers by fingerprint, of the request as recorded (redacted).
            if fingerprint(redact.value(self.request_for(text, specs))) == fingerprint(
                    entry["request"]):
                found.append(text)
        return found

    def ask(self, text: str) -> PlaygroundTurn:
        """Send ``text`` to the model once and make the tool calls it asks for.

        The results are not sent back to the model: one model call per ask. A failed
        model call (a cassette miss included) is a turn with ``error``, not an exception.

        Raises:
            WorkbenchError: something other than the model call failed (the model's
                extra is not installed, a cassette cannot be written).
        """
        specs = self.tools()
        body = self.request_for(text, specs)
        # The turn's number is the tick: a cassette records it, and a replay in a fresh
        # playground asks in the same order.
        tick = len(self.turns) + 1
        try:
            reply = self.model.complete(body, agent=self.agent, tick=tick)
        except CassetteMiss as miss:
            turn = PlaygroundTurn(text, body, error=(
                f"{miss.kind}: this request is not in the cassette {miss.path} (a replay "
                f"answers only the requests recorded: pick one of them); asking something "
                f"new needs a live model: give the URL of one (url=...)"))
        except ModelError as exc:
            turn = PlaygroundTurn(text, body, error=f"{exc.kind}: {exc.message}")
        else:
            calls, error = self._make_calls(reply.tool_calls, function_names(specs))
            turn = PlaygroundTurn(text, body, reply.text, calls, error)
        self.turns.append(turn)
        return turn

    def _make_calls(self, tool_calls: tuple[ChatToolCall, ...], names: dict[str, str]
                    ) -> tuple[tuple[PlaygroundCall, ...], str | None]:
        """Each call through the registry; stop at a granted tool nothing offers."""
        made: list[PlaygroundCall] = []
        for call in tool_calls:
            # A wire alias maps back to its tool; any other name is the model's own, and
            # the registry refuses it unless it is granted.
            tool = names.get(call.name, call.name)
            params, bad = read_arguments(call, tool)
            if bad is not None:
                made.append((tool, {}, self.hand.failed(self.agent, tool, call.arguments, bad)))
                continue
            try:
                outcome = self.hand.call(self.registry, self.agent, self.manifest, tool, params)
            except ToolNotFound as exc:
                # A run ends the agent's turn here (agent.failed); so does the playground.
                return tuple(made), f"tool_not_found: {exc}"
            made.append((tool, params, outcome))
        return tuple(made), None


def _user_text(request: Any) -> str | None:
    """The last user message's text of a recorded request (None when it has none)."""
    messages = request.get("messages") if isinstance(request, dict) else None
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else None
    return None
