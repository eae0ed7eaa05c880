"""A pass-through relay: the least any proxy process between a host and a server can do.

``python bench/_relay.py stdio -- COMMAND...`` starts COMMAND and copies bytes between this
process's stdin/stdout and the child's, in both directions, as they arrive.
``python bench/_relay.py tcp LISTEN_PORT UPSTREAM_PORT`` accepts connections on
127.0.0.1:LISTEN_PORT and copies bytes between each and a connection of its own to
127.0.0.1:UPSTREAM_PORT.

It reads no message, checks nothing and records nothing, so what it adds to a call is the
floor under any gateway: one more process, two more pipe or socket hops, and the wake-ups
they take. ``bench_gateway.py`` measures it beside the gateway in the same run.
"""

from __future__ import annotations

import asyncio
import os
import sys

_CHUNK = 1 << 16


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(_CHUNK):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def _stdio(argv: list[str]) -> int:
    loop = asyncio.get_running_loop()
    child = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE,
                                                 stdout=asyncio.subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    host_in = asyncio.StreamReader(limit=_CHUNK)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(host_in),
                                 os.fdopen(0, "rb", buffering=0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(1, "wb", buffering=0))
    host_out = asyncio.StreamWriter(transport, protocol, None, loop)
    upward = asyncio.create_task(_pump(host_in, child.stdin))
    await _pump(child.stdout, host_out)
    upward.cancel()
    return await child.wait()


async def _tcp(listen: int, upstream: int) -> None:
    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
        await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))

    server = await asyncio.start_server(relay, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


def main() -> int:
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "stdio":
        return asyncio.run(_stdio(rest[1:] if rest[:1] == ["--"] else rest))
    try:
        asyncio.run(_tcp(int(rest[0]), int(rest[1])))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
