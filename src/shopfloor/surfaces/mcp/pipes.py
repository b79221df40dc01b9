"""stdio's lines read and written on the event loop, for the SDK's `stdio_server`.

The SDK serves stdin and stdout as anyio's wrapped files: every line read, every line
written and every flush is a hop to a worker thread and back: three per call, a third of
a `get_item`'s server CPU over stdio (850 us a call with them, 570 without, the SDK's
echo server 540; issue 32). When
both ends are pipes or sockets, as an MCP host spawns a server, the loop watches them
itself: a line is read when the loop sees it, and a line written goes straight to the
pipe (the loop waits for room only when the host is slow to read). The SDK still parses
every line and shapes every answer (its `stdio_server`, handed these two); a terminal or
a file falls back to the SDK's own files.

While serving, fd 0 reads the null device and fd 1 writes to stderr, as in the SDK's
own claim of the two, so a stray print or a child process never writes on the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator

LINE_CHUNK = 1 << 16
"""How much of a line the loop holds before handing it on in pieces (a line has no
limit: a long one, a CSV to import, is read chunk by chunk)."""


def _streamable(fd: int) -> bool:
    if sys.platform == "win32":  # (the loop's pipes are Unix's)
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class Lines:
    """stdin as the SDK's reader iterates it: text lines, the last maybe unterminated."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        chunks: list[bytes] = []
        while True:
            try:
                chunks.append(await self._reader.readuntil(b"\n"))
                break
            except asyncio.LimitOverrunError as long:  # a long line: take what is there
                chunks.append(await self._reader.readexactly(long.consumed))
            except asyncio.IncompleteReadError as end:
                if not end.partial and not chunks:
                    raise StopAsyncIteration from None
                chunks.append(end.partial)
                break
        return b"".join(chunks).decode("utf-8", errors="replace")


class _Room(asyncio.Protocol):
    """The write pipe's flow control: `wait` returns once nothing waits to be written."""

    def __init__(self) -> None:
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None
        self.lost: Exception | None = None

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or BrokenPipeError("stdout closed")
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def wait(self) -> None:
        while self._paused and self.lost is None:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        if self.lost is not None:
            raise self.lost


class Out:
    """stdout as the SDK's writer uses it: `write` hands the line to the pipe at once
    (asyncio writes what the pipe takes before returning), `flush` returns once all of
    it is written, as a file's flush does (the pipe's buffer limit is 0)."""

    def __init__(self, transport: asyncio.WriteTransport, room: _Room) -> None:
        self._transport = transport
        self._room = room

    async def write(self, text: str) -> None:
        if self._room.lost is not None:
            raise self._room.lost
        self._transport.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._room.wait()


@contextlib.asynccontextmanager
async def loop_stdio() -> AsyncIterator[tuple[Lines, Out] | None]:
    """(stdin, stdout) on the running asyncio loop, with fd 0 and fd 1 diverted while
    they serve; None when either is not a pipe or a socket, or the loop is not asyncio's
    (then the caller serves the SDK's own files)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is None or not (_streamable(0) and _streamable(1)):
        yield None
        return
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    blocking = os.get_blocking(wire_in), os.get_blocking(wire_out)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    read_transport: asyncio.BaseTransport | None = None
    write_transport: asyncio.WriteTransport | None = None
    room = _Room()
    try:
        reader = asyncio.StreamReader(limit=LINE_CHUNK)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader),
            os.fdopen(wire_in, "rb", 0, closefd=False))
        write_transport, _ = await loop.connect_write_pipe(
            lambda: room, os.fdopen(wire_out, "wb", 0, closefd=False))
        write_transport.set_write_buffer_limits(high=0)  # flush: until all is written
        yield Lines(reader), Out(write_transport, room)
    finally:
        if write_transport is not None and room.lost is None:
            with contextlib.suppress(Exception):
                await room.wait()  # what is still buffered, before the fd is closed
        for transport in (read_transport, write_transport):
            if transport is not None:
                transport.close()
        with contextlib.suppress(Exception):  # stray prints still buffered: to stderr
            sys.stdout.flush()
        for fd, wire, was in ((0, wire_in, blocking[0]), (1, wire_out, blocking[1])):
            with contextlib.suppress(OSError):
                os.set_blocking(wire, was)
                os.dup2(wire, fd)
            os.close(wire)
