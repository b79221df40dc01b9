"""Run real servers for tests and benches: uvicorn in a thread on a free loopback port, or
a server command in its own process."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: Any) -> Iterator[str]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def serving_process(cmd: list[str], env: dict[str, str], port: int
                    ) -> Iterator[subprocess.Popen[bytes]]:
    """`cmd` in its own process (as deployed: no interpreter lock shared with the client),
    until it accepts connections on `port`; terminated afterwards."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{cmd[0]} did not start") from None
                time.sleep(0.05)
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


@contextmanager
def serving_registry(registry: Any, db_url: str, account: tuple[str, str, str] | None = None
                     ) -> Iterator[str]:
    """`shopfloor serve`'s app over this registry (no worker), with a local account
    (name, password, role) made first when the test signs in."""
    from shopfloor.app.accounts import Accounts
    from shopfloor.app.settings import Settings
    from shopfloor.surfaces.server import build_app

    if account is not None:
        Accounts(registry.store).create(*account)
    with serving(build_app(registry, Settings(database_url=db_url), run_worker=False)) as url:
        yield url


@contextmanager
def admin_client(registry: Any, db_url: str, **headers: str) -> Iterator[Any]:
    """The HTTP app over this registry (its currency EUR) in a Starlette TestClient signed
    in as an admin, reading en-GB, with these headers besides."""
    from starlette.testclient import TestClient

    from shopfloor.app.settings import Settings
    from shopfloor.surfaces.http import create_app

    app = create_app(registry, Settings(database_url=db_url, currency="EUR"))
    with TestClient(app, headers={"Accept-Language": "en-GB", **headers}) as client:
        client.cookies.set("shopfloor_session", app.state.auth.mint("ada", ["admin"], 600))
        yield client
