"""A real webhook receiver for tests and benches: an HTTP server on loopback that
records every request and answers from a script (500 first, then 200, ...)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
    delay: float = 0.0
    """Seconds each answer takes (a slow receiver keeps deliveries in flight)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def answer(self) -> int:
        with self.lock:
            return self.script.pop(0) if self.script else 200

    def wait_for(self, n: int, timeout: float) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.received) >= n, timeout)


@contextmanager
def receiving(script: list[int] | None = None, path: str = "/hook", delay: float = 0.0
              ) -> Iterator[Receiver]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server.daemon_threads = True
    rec = Receiver(f"http://127.0.0.1:{server.server_address[1]}{path}", list(script or []),
                   delay=delay)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = self.rfile.read(length)
            if len(body) < length:  # the sender died mid-request: nothing arrived
                self.close_connection = True
                return
            code = rec.answer()
            if rec.delay:
                time.sleep(rec.delay)
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
        server.shutdown()
        server.server_close()
        thread.join(5)
