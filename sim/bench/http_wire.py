"""The load generator's HTTP/1.1: one keep-alive connection per client, written and read on
asyncio streams, so that a call costs the generator a small part of what it costs the
server (through httpx2 it cost about as much, and on two cores the generator then bounded
the floor's calls/s as much as the floor did). A POST with a JSON body, a DELETE; the answer
read by its Content-Length or its chunks (an SSE stream); a connection the server closes is
opened again for the next request."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

TIMEOUT_S = 60.0


class WireError(Exception):
    """The connection failed or the answer was not HTTP/1.1 this reader takes."""


@dataclass
class WireResponse:
    """What the bench reads of an answer (the names httpx2's response gives them)."""

    status_code: int
    headers: dict[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


class Connection:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = parts.path or "/"
        self.hostport = parts.netloc.encode()
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, message: Any, headers: dict[str, str]) -> WireResponse:
        return await self.request("POST", json.dumps(message).encode(), headers)

    async def delete(self, headers: dict[str, str]) -> WireResponse:
        return await self.request("DELETE", b"", headers)

    async def request(self, method: str, body: bytes, headers: dict[str, str]) -> WireResponse:
        try:
            return await asyncio.wait_for(self._exchange(method, body, headers), TIMEOUT_S)
        except (OSError, EOFError, LookupError, ValueError, asyncio.LimitOverrunError) as e:
            await self.close()
            raise WireError(f"{type(e).__name__} {e}") from None
        except TimeoutError:
            await self.close()
            raise WireError(f"no answer within {TIMEOUT_S:g} s") from None

    async def _exchange(self, method: str, body: bytes, headers: dict[str, str]) -> WireResponse:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._streams
        head = [f"{method} {self.path} HTTP/1.1", f"Host: {self.hostport.decode()}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        head.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        status_line, *lines = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        fields = {}
        for line in lines:
            name, sep, value = line.partition(":")
            if sep:
                fields[name.strip().lower()] = value.strip()
        if "content-length" in fields:
            content = await reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            content = await _chunks(reader)
        else:
            content = await reader.read()  # the body ends with the connection
            fields["connection"] = "close"
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return WireResponse(status, fields, content)

    async def close(self) -> None:
        if self._streams is not None:
            writer = self._streams[1]
            self._streams = None
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _chunks(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # the end of the (empty) trailer
            return b"".join(parts)
        parts.append((await reader.readexactly(size + 2))[:-2])
