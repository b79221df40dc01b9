"""A real webhook receiver for tests and benches: an HTTP server on loopback that
records every request and answers from a script (500 first, then 200, ...).

A slow receiver is one whose answers the test holds (`hold`) and lets go (`release`)
when what it waits for has happened (the sender gave up, a worker was killed), never one
that sleeps for a time thought long enough."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOLD_LIMIT = 60.0
"""The longest a held answer waits for its release: a failing test's bound, not a delay."""


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    url: str
    script: list[int] = field(default_factory=list)
    """Status codes to answer, in order; 200 once it runs out."""
    received: list[Received] = field(default_factory=list)
    gate: threading.Event = field(default_factory=threading.Event)
    """Set: answers go at once; cleared (`hold`): each waits until the test releases it,
    so deliveries stay in flight."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Condition = field(default_factory=threading.Condition)
    waiting: int = 0
    """Requests held at the gate now."""
    limit: float = HOLD_LIMIT
    """The longest one answer is held."""

    def hold(self, limit: float = HOLD_LIMIT) -> None:
        """Hold answers until `release`, each at most `limit` seconds: a bound under the
        sender's timeout keeps a held delivery from counting as failed."""
        self.limit = limit
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def wait_held(self, n: int, timeout: float) -> bool:
        """Until at least `n` requests are held at the gate (False at the deadline)."""
        with self.arrived:
            return self.arrived.wait_for(lambda: self.waiting >= n, timeout)

    def answer(self) -> int:
        with self.lock:
            return self.script.pop(0) if self.script else 200

    def wait_for(self, n: int, timeout: float) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.received) >= n, timeout)


@contextmanager
def receiving(script: list[int] | None = None, path: str = "/hook", held: bool = False
              ) -> Iterator[Receiver]:
    """`held`: the receiver starts holding its answers (see `Receiver.hold`)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server.daemon_threads = True
    rec = Receiver(f"http://127.0.0.1:{server.server_address[1]}{path}", list(script or []))
    if not held:
        rec.release()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = self.rfile.read(length)
            if len(body) < length:  # the sender died mid-request: nothing arrived
                self.close_connection = True
                return
            code = rec.answer()
            if not rec.gate.is_set():
                with rec.arrived:
                    rec.waiting += 1
                    rec.arrived.notify_all()
                rec.gate.wait(rec.limit)  # a test that never releases still ends
                with rec.arrived:
                    rec.waiting -= 1
            with rec.arrived:  # counted as received even if the sender is gone by now
                rec.received.append(Received(dict(self.headers.items()), body, code))
                rec.arrived.notify_all()
            payload = b"ok" if code < 300 else b"try later"
            self.send_response(code)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server.RequestHandlerClass = Handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        rec.release()  # nothing left held on the way out
        server.shutdown()
        server.server_close()
        thread.join(5)
