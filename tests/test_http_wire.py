"""The load generator's HTTP/1.1 reader takes what uvicorn sends: a Content-Length body, a
chunked one (an SSE stream), a body that ends with the connection, and it opens the
connection again after the server closed it; a broken answer is a WireError, counted."""

from __future__ import annotations

import asyncio
import json

import anyio
import pytest

from sim.bench.http_wire import Connection, WireError

ANSWERS = [
    b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{"id":1}',
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    b"\r\n5\r\nevent\r\n12\r\n: message\ndata: {}\r\n0\r\n\r\n",
    b"HTTP/1.1 202 Accepted\r\nmcp-session-id: s-1\r\nConnection: close\r\n\r\n",
    b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}",
    b"garbage\r\n\r\n",
]


def test_the_wire_client_reads_each_framing_and_reconnects() -> None:
    seen: list[tuple[bytes, bytes]] = []
    connections = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while ANSWERS[len(seen) :]:
            head = await reader.readuntil(b"\r\n\r\n")
            size = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            seen.append((head.split(b"\r\n")[0], await reader.readexactly(size)))
            writer.write(ANSWERS[len(seen) - 1])
            await writer.drain()
            if b"Connection: close" in ANSWERS[len(seen) - 1]:
                break
        writer.close()

    async def main() -> list[object]:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        wire = Connection(f"http://127.0.0.1:{port}/mcp")
        got: list[object] = []
        with anyio.fail_after(5):
            first = await wire.post({"id": 1}, {"Accept": "application/json"})
            got.append((first.status_code, first.json()))
            sse = await wire.post({"id": 2}, {})
            got.append((sse.headers["transfer-encoding"], sse.text))
            closed = await wire.post({"id": 3}, {})
            got.append((closed.status_code, closed.headers["mcp-session-id"]))
            gone = await wire.delete({})
            got.append(gone.status_code)
            with pytest.raises(WireError):
                await wire.post({"id": 5}, {})
            await wire.close()
        server.close()
        return got

    got = anyio.run(main)
    assert got == [
        (200, {"id": 1}),
        ("chunked", "event: message\ndata: {}"),
        (202, "s-1"),
        404,
    ]
    assert [line for line, _ in seen] == [b"POST /mcp HTTP/1.1"] * 3 + [
        b"DELETE /mcp HTTP/1.1",
        b"POST /mcp HTTP/1.1",
    ]
    assert json.loads(seen[0][1]) == {"id": 1} and seen[3][1] == b""
    assert connections == 2  # opened again after the 202 closed it
