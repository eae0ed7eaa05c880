"""Streamable HTTP for MCP with a bound on what a server may send back.

The SDK reads a JSON reply whole (``response.aread()``) and parses it, however large. This
module gives it an HTTP client whose transport counts a JSON reply's bytes as they arrive:
past the cap it stops keeping them, drains (or drops) the rest, and hands the SDK a
JSON-RPC error for the same request instead, marked "result too large" with the size.
Event-stream replies are bounded per event by the SDK's own ``max_sse_event_size``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from workbench.tools.mcp.stdio import TOO_LARGE_MARK

__all__ = ["http_transport"]


@contextlib.asynccontextmanager
async def http_transport(url: str, *, max_message: int, note: Callable[[str], None]
                         ) -> AsyncIterator[Any]:
    """Yield ``(read_stream, write_stream)`` for ``mcp.Client`` over Streamable HTTP."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    class Capped(httpx2.AsyncBaseTransport):
        def __init__(self, inner: httpx2.AsyncBaseTransport):
            self.inner = inner

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            response = await self.inner.handle_async_request(request)
            kind = response.headers.get("content-type", "").lower()
            if request.method != "POST" or not kind.startswith("application/json"):
                return response
            body, size = bytearray(), 0
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_message:
                size = int(declared)  # no need to read what is refused anyway
            else:
                async for chunk in response.stream:
                    size += len(chunk)
                    if size <= max_message:
                        body += chunk
            await response.aclose()
            headers = {k: v for k, v in response.headers.items()
                       if k.lower() not in ("content-length", "transfer-encoding",
                                            "content-encoding")}
            if size > max_message:
                why = (f"result too large: {size} bytes, more than the {max_message}-byte cap "
                       f"(WORKBENCH_MCP_MAX_RESULT)")
                note(f"dropped a {size}-byte reply from the server ({why})")
                body = bytearray(json.dumps({"jsonrpc": "2.0", "id": _request_id(request),
                                             "error": {"code": -32700, "message": why, "data": {
                                                 "workbench": TOO_LARGE_MARK, "size": size,
                                                 "cap": max_message}}}).encode())
            return httpx2.Response(response.status_code, headers=headers, content=bytes(body),
                                   request=request, extensions=response.extensions)

        async def aclose(self) -> None:
            await self.inner.aclose()

    # The SDK's own defaults (create_mcp_http_client): 30 s to connect, 300 s to read.
    client = httpx2.AsyncClient(transport=Capped(httpx2.AsyncHTTPTransport()),
                                timeout=httpx2.Timeout(30.0, read=300.0))
    async with client, streamable_http_client(url, http_client=client,
                                              max_sse_event_size=max_message) as streams:
        yield streams


def _request_id(request: Any) -> Any:
    try:
        return json.loads(request.content).get("id")
    except (ValueError, AttributeError):
        return None
