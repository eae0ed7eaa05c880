"""The tool loop: one agent turn as a conversation between a chat model and the registry.

1. The system message is the agent's prompt (persona, the ``AVAILABLE TOOLS`` block,
   recent events); a short user message asks it to act. ``tools`` lists exactly its
   granted tools as function definitions, rendered by :mod:`workbench.agents.render`.
2. Each tool call in the reply goes through the registry like any other call
   (``tool.called`` or ``tool.denied`` on the ledger). The result, the error or the
   refusal goes back as a ``tool`` message answering the call's id, so the model can
   correct itself. Arguments that are not a JSON object are a recorded ``tool_error``.
3. The loop ends on a reply without tool calls, or after ``max_steps`` model calls. The
   last reply's text is what the agent says.

Tool-call ids are random on real servers; they are replaced by ``callSSIII`` (step and
index) as soon as a reply is read, so requests, fingerprints and cassettes are the same
in every run, and nothing random is ever hashed.

Replies reach the loop already checked and redacted (:mod:`workbench.agents.replies`);
what the loop adds to the conversation itself, the ``tool`` messages, is redacted with
the model's key too, so the transcript and the next request never carry it.

Each model call asks the turn first (``model_call_starting``: the governor's
``max_model_calls``) and reports after (``model_call_done``: the calls log and the
transcript), when the turn offers those hooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.agents.render import function_definitions, function_names
from workbench.contracts.canonical import canonical_json
from workbench.errors import ToolCallError, ToolDenied

if TYPE_CHECKING:
    from workbench.agents.base import ManifestAgent, Turn
    from workbench.agents.openai_model import ChatToolCall, OpenAIModel

__all__ = ["converse", "normal_id", "read_arguments", "user_message"]


def normal_id(step: int, index: int) -> str:
    """The id the loop gives the ``index``-th call of the ``step``-th reply.

    Nine letters and digits: the strictest servers accept it.
    """
    return f"call{step:02d}{index:03d}"


def user_message(turn: Turn) -> str:
    """What the user turn says: act now, for this tick."""
    return (f"Tick {turn.tick}. Act now: call your tools if you need them, then reply with "
            f"what you say, in one or two sentences.")


def converse(model: OpenAIModel, agent: ManifestAgent, turn: Turn, system: str
             ) -> str | None:
    """Run the loop for one turn; return the text the agent says (None: nothing).

    Raises:
        ModelError: a model call failed (the conductor records ``agent.failed``).
    """
    specs = agent.available_tools()
    tools = function_definitions(specs)
    names = function_names(specs)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user_message(turn)},
    ]
    starting = getattr(turn, "model_call_starting", None)
    done = getattr(turn, "model_call_done", None)
    redact = model.redactor()
    text: str | None = None
    for step in range(model.max_steps):
        if starting is not None:
            starting()
        body = model.request_body(messages, tools)
        reply = model.complete(body, agent=agent.name, tick=turn.tick)
        text = reply.text
        # No "content" key rather than null beside tool calls: the API allows both, and
        # some servers (llama-cpp-python's) refuse null with HTTP 500.
        assistant: dict[str, Any] = {"role": "assistant"}
        if text is not None:
            assistant["content"] = text
        ids = [normal_id(step, i) for i in range(len(reply.tool_calls))]
        if reply.tool_calls:
            assistant["tool_calls"] = [
                {"id": id_, "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments}}
                for id_, call in zip(ids, reply.tool_calls, strict=True)]
        messages.append(assistant)
        if done is not None:
            done(agent, {"step": step, "tools": len(reply.tool_calls), **reply.telemetry},
                 messages)
        if not reply.tool_calls:
            break
        for id_, call in zip(ids, reply.tool_calls, strict=True):
            content = _make_call(agent, turn, names.get(call.name, call.name), call)
            messages.append({"role": "tool", "tool_call_id": id_,
                             "content": redact.text(content)})
    return text


def read_arguments(call: ChatToolCall, tool: str) -> tuple[dict[str, Any], ToolCallError | None]:
    """A call's arguments as an object, or the ``tool_error`` that goes back to the model.

    Arguments that are not one JSON object are never sent anywhere: a run records the call
    as failed with the text the model wrote, and tells the model how to send them.
    """
    try:
        return call.parsed(), None
    except ValueError as exc:
        return {}, ToolCallError("tool_error", f"arguments are not a JSON object ({exc}); "
                                 f"send the arguments as one JSON object", tool)


def _make_call(agent: ManifestAgent, turn: Turn, tool: str, call: ChatToolCall) -> str:
    """Make one call through the registry; return the ``tool`` message's content."""
    params, error = read_arguments(call, tool)
    if error is not None:
        record = getattr(turn, "call_failed", None)
        if record is not None:
            record(agent, tool, call.arguments, error)
        return canonical_json({"error": error.to_payload()})
    try:
        result = agent.call_tool(tool, **params)
    except ToolDenied as denied:
        return canonical_json({"denied": denied.reason, "message": str(denied)})
    except ToolCallError as failed:
        return canonical_json({"error": failed.to_payload()})
    return canonical_json(result)
