"""A loopback OpenAI-compatible Chat Completions server: the test double for a hosted LLM.

It speaks the real wire protocol over real HTTP (``POST /v1/chat/completions``) and checks
requests the way real APIs do, answering 400 with an OpenAI-shaped error for:

* a ``tool`` message whose ``tool_call_id`` answers no earlier assistant tool call;
* an assistant tool call left unanswered before the next non-tool message;
* a function name outside ``^[a-zA-Z0-9_-]{1,64}$`` (in ``tools`` or in a tool call);
* a malformed body (no model, no messages, unknown roles, a tool without a function).

A wrong ``Authorization`` bearer is a 401 that echoes the key, as some servers do, so the
tests can check the workbench scrubs it. What the server answers comes from a *brain*
(``body -> response dict or Fault``) and, first, from a queue of scripted answers. Tool
call ids are random, as on real servers.

A hostile server is scripted with :class:`Raw`: bytes sent as they are, with any status
and content type, optionally trickled (a pause before each chunk, the headers too) or
streamed from a generator (:func:`flood`: hundreds of megabytes never held in memory).
``sent`` counts the body bytes each Raw answer got onto the wire before the client
hung up, so a test can tell a client that stopped reading from one that buffered it all.

Run it standalone for the benchmarks, or to re-record the shipped counting-house cassettes
(the scripted clerk of :func:`counting_brain`)::

    python tests/agents/chat_server.py --port 8765 --brain counting
    python tests/agents/chat_server.py --record-counting-house config
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ROLES = {"system", "developer", "user", "assistant", "tool"}


@dataclass
class Fault:
    """An HTTP error answer (429, 500, ...), or a delay before answering ``then``."""

    status: int = 500
    message: str = "The server had an error while processing your request."
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    then: dict[str, Any] | None = None


@dataclass
class Raw:
    """An answer sent byte for byte: a malformed body, a trickle, a flood.

    Attributes:
        chunks: The body, as bytes or as an iterable of chunks (a generator is never
            held in memory whole).
        status: The HTTP status.
        content_type: The Content-Type header.
        length: The Content-Length to declare; the body's length when ``chunks`` is
            bytes, and none (the connection closes after the body) when it is not.
        interval: Seconds to wait before each chunk (a body trickled one chunk at a time).
        slow_head: Trickle the status line and headers too, one byte per ``interval``.
    """

    chunks: bytes | Iterable[bytes]
    status: int = 200
    content_type: str = "application/json"
    length: int | None = None
    interval: float = 0.0
    slow_head: bool = False


def trickle(payload: dict[str, Any] | bytes, interval: float, *, slow_head: bool = False
            ) -> Raw:
    """``payload`` sent one byte per ``interval`` seconds, with its true Content-Length."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return Raw([data[i:i + 1] for i in range(len(data))], length=len(data),
               interval=interval, slow_head=slow_head)


def flood(total: int, chunk: int = 1 << 20) -> Raw:
    """A 200 of ``total`` bytes, well formed if it were ever read to the end.

    The body is a completion whose content is ``total`` bytes of ``a``, generated a
    chunk at a time so the server never holds it.
    """
    head = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
    tail = b'"}, "finish_reason": "stop"}]}'
    filler = total - len(head) - len(tail)

    def body() -> Iterator[bytes]:
        yield head
        left = filler
        block = b"a" * chunk
        while left > 0:
            yield block[:left]
            left -= chunk
        yield tail

    return Raw(body(), length=total)


def _call(name: str, arguments: Any) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
            "function": {"name": name, "arguments": text}}


def completion(text: str | None = None, calls: list[tuple[str, Any]] = (),
               model: str = "loopback-scripted", refusal: str | None = None
               ) -> dict[str, Any]:
    """A Chat Completions response body with a random id, as a real server sends one."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": refusal}
    if calls:
        message["tool_calls"] = [_call(name, args) for name, args in calls]
    return {
        "id": f"chatcmpl-{uuid.uuid4()}", "object": "chat.completion",
        "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
    }


def check_request(body: Any) -> str | None:
    """What a real API would reject in ``body`` (the 400 message), or None."""
    if not isinstance(body, dict):
        return "We could not parse the JSON body of your request."
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "Invalid 'messages': empty array. Expected an array with minimum length 1."
    for i, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn,
                                                                                        dict):
            return f"Invalid 'tools[{i}]': expected an object with type 'function'."
        if not isinstance(fn.get("name"), str) or not FUNCTION_NAME.match(fn["name"]):
            return (f"Invalid 'tools[{i}].function.name': string does not match pattern. "
                    f"Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.")
        params = fn.get("parameters")
        if params is not None and (not isinstance(params, dict) or params.get("type") != "object"):
            return f"Invalid schema for function '{fn['name']}': schema must be a JSON Schema " \
                   f"of 'type: \"object\"'."
    pending: list[str] = []
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ROLES:
            return f"Invalid value: '{role}'. Supported values are: {sorted(ROLES)}."
        if role == "tool":
            if msg.get("tool_call_id") not in pending:
                return ("Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.")
            pending.remove(msg["tool_call_id"])
            continue
        if pending:
            return ("An assistant message with 'tool_calls' must be followed by tool messages "
                    "responding to each 'tool_call_id'. The following tool_call_ids did not "
                    f"have response messages: {', '.join(pending)}")
        if role == "assistant":
            if msg.get("content") is None and not msg.get("tool_calls"):
                return (f"Invalid 'messages[{i}]': an assistant message needs 'content' "
                        f"unless it has 'tool_calls'.")
            for call in msg.get("tool_calls") or []:
                name = (call.get("function") or {}).get("name", "")
                if not FUNCTION_NAME.match(name):
                    return f"Invalid 'messages[{i}].tool_calls': function name {name!r} " \
                           f"does not match '^[a-zA-Z0-9_-]+$'."
                pending.append(call.get("id"))
    if pending:
        return ("An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(pending)}")
    return None


Brain = Callable[[dict[str, Any]], "dict[str, Any] | Fault"]


def echo_brain(body: dict[str, Any]) -> dict[str, Any]:
    """Says how many messages it was sent: a plain text reply, no tool calls."""
    return completion(f"I read {len(body['messages'])} messages.", model=body["model"])


class ChatServer:
    """The server on a free loopback port, answering from a thread.

    Args:
        brain: Answers requests once the scripted queue is empty.
        api_key: The bearer every request must carry (None: any).

    Attributes:
        requests: Every well-formed request body received, in order.
        rejected: ``(status, message)`` of every request answered with an error.
        script: Answers (response dicts, Faults or Raws) given before the brain is asked.
        sent: Body bytes written for each Raw answer, in order (counted as they go out:
            less than the body when the client stopped reading).
    """

    def __init__(self, brain: Brain = echo_brain, api_key: str | None = "sk-test-key",
                 port: int = 0):
        self.brain = brain
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[tuple[int, str]] = []
        self.script: deque[Any] = deque()
        self.sent: list[int] = []
        self._lock = threading.Lock()
        self._connections: set[Any] = set()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL clients use (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> ChatServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.05})
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the port: clients now get connection refused.

        Open keep-alive connections are cut too, as when a server process exits.
        """
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            for conn in list(self._connections):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                conn.close()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def answer(self, body: dict[str, Any]) -> Any:
        with self._lock:
            self.requests.append(body)
            queued = self.script.popleft() if self.script else None
        return queued if queued is not None else self.brain(body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
            # Headers and body go out in two writes: without this, Nagle and delayed ACKs
            # add 40 ms to every answer.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def setup(self) -> None:
                super().setup()
                with server._lock:
                    server._connections.add(self.connection)

            def finish(self) -> None:
                with server._lock:
                    server._connections.discard(self.connection)
                try:
                    super().finish()
                except OSError:  # cut by stop()
                    pass

            def _send(self, status: int, payload: Any,
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _raw(self, reply: Raw) -> None:
                chunks = [reply.chunks] if isinstance(reply.chunks, bytes) else reply.chunks
                length = len(reply.chunks) if isinstance(reply.chunks, bytes) else \
                    reply.length
                head = (f"HTTP/1.1 {reply.status} Answer\r\n"
                        f"Content-Type: {reply.content_type}\r\n")
                head += (f"Content-Length: {length}\r\n" if length is not None
                         else "Connection: close\r\n")
                head += "\r\n"
                index = len(server.sent)
                server.sent.append(0)
                self.close_connection = length is None
                try:
                    if reply.slow_head:
                        for byte in head.encode():
                            time.sleep(reply.interval)
                            self.wfile.write(bytes([byte]))
                    else:
                        self.wfile.write(head.encode())
                    for chunk in chunks:
                        if reply.interval:
                            time.sleep(reply.interval)
                        self.wfile.write(chunk)
                        server.sent[index] += len(chunk)
                except OSError:  # the client hung up: what a capped reader does
                    self.close_connection = True

            def _error(self, status: int, message: str, kind: str = "invalid_request_error",
                       headers: dict[str, str] | None = None) -> None:
                server.rejected.append((status, message))
                self._send(status, {"error": {"message": message, "type": kind,
                                              "param": None, "code": None}}, headers)

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._error(404, f"Unknown request URL: POST {self.path}.")
                    return
                auth = self.headers.get("Authorization", "")
                if server.api_key is not None and auth != f"Bearer {server.api_key}":
                    given = auth.removeprefix("Bearer ")
                    self._error(401, f"Incorrect API key provided: {given}.",
                                "authentication_error")
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                problem = check_request(body)
                if problem is not None:
                    self._error(400, problem)
                    return
                reply = server.answer(body)
                if isinstance(reply, Raw):
                    self._raw(reply)
                    return
                if isinstance(reply, Fault):
                    if reply.delay:
                        time.sleep(reply.delay)
                    if reply.then is not None:
                        self._send(200, reply.then)
                    else:
                        self._error(reply.status, reply.message, "server_error",
                                    reply.headers)
                    return
                self._send(200, reply)

        return Handler


# -- the scripted "model" of the counting-house scenario ----------------------------------
def _tick_of(body: dict[str, Any]) -> int:
    for msg in body["messages"]:
        if msg["role"] == "user":
            found = re.match(r"Tick (\d+)\.", msg.get("content") or "")
            if found:
                return int(found.group(1))
    return 0


def counting_brain(body: dict[str, Any]) -> dict[str, Any]:
    """A scripted clerk that believes every tool description it is shown.

    Step 1 adds the tick's takings with ``add_numbers`` (filling ``sidenote`` with what
    the description asks for when it asks); step 2 formats the report with
    ``format_report`` and, if that description tells it to, also sends it to
    ``audit_log``; step 3 says what happened, refusals included. It reads nothing but the
    request, so the same request gets the same answer (the ids aside).
    """
    offered = {t["function"]["name"]: t["function"].get("description") or ""
               for t in body.get("tools") or []}
    steps = sum(1 for m in body["messages"] if m["role"] == "assistant")
    tick = _tick_of(body)
    a, b = 17 * tick, 25
    report = f"Takings for tick {tick}: {a} + {b} = {a + b} coins."
    model = "loopback-scripted"  # honest in the calls log: no real model wrote this
    if steps == 0:
        if "add_numbers" not in offered:
            return completion("I have nothing to add the takings with today.", model=model)
        lured = "mcp.json" in offered["add_numbers"]
        sidenote = "~/.cursor/mcp.json, as the tool asked" if lured else ""
        return completion(None, [("add_numbers", {"a": a, "b": b, "sidenote": sidenote})],
                          model=model)
    if steps == 1 and "format_report" in offered:
        calls: list[tuple[str, Any]] = [("format_report", {"report": report})]
        if "audit_log" in offered["format_report"]:
            calls.append(("audit_log", {"entry": report}))
        return completion(None, calls, model=model)
    refused = []
    for msg in body["messages"]:
        if msg["role"] == "tool" and '"denied"' in (msg.get("content") or ""):
            refused.append(json.loads(msg["content"])["denied"])
    text = f"Report filed. {report}"
    if refused:
        text += f" One call was refused ({refused[-1]})."
    return completion(text, model=model)


BRAINS: dict[str, Brain] = {"echo": echo_brain, "counting": counting_brain}

#: The scenarios whose cassettes are shipped in config/cassettes/, and the tools to approve.
COUNTING_HOUSE = ("counting-house", "counting-house-curated")
COUNTING_APPROVALS = ("add_numbers", "format_report")


def record_counting_house(config: Path, out: Path, url: str) -> dict[str, str]:
    """Record both counting-house cassettes into ``out`` from the server at ``url``.

    Returns:
        Scenario name -> final hash of the recording run.
    """
    from workbench.engine.conductor import Conductor
    from workbench.surface.approval import ApprovalPolicy

    hashes = {}
    for name in COUNTING_HOUSE:
        conductor = Conductor.from_config(
            config, name, cassette=out / f"{name}.jsonl", cassette_mode="record",
            model_url=url, approver=ApprovalPolicy(allow=list(COUNTING_APPROVALS)))
        hashes[name] = conductor.run().final_hash
    return hashes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--brain", choices=sorted(BRAINS), default="echo")
    parser.add_argument("--api-key", default="sk-test-key")
    parser.add_argument("--record-counting-house", metavar="CONFIG",
                        help="record config/cassettes/counting-house*.jsonl from this server")
    args = parser.parse_args()
    if args.record_counting_house:
        config = Path(args.record_counting_house)
        with ChatServer(counting_brain, api_key=None) as server:
            print(record_counting_house(config, config / "cassettes", server.url))
        return
    server = ChatServer(BRAINS[args.brain], api_key=args.api_key, port=args.port)
    print(server.url, flush=True)
    server._httpd.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
