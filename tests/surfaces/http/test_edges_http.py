"""HTTP edges: a GET on the stateless /mcp is answered at once, and bearer tokens are
verified once per token but still refused the moment they expire."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import jwt
import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.clock import Clock
from tests.servers import serving

SSE = {"Accept": "text/event-stream, application/json"}


@pytest.fixture
def clock() -> Clock:
    """Frozen on a whole second: a token's `exp` is a whole second from it."""
    return Clock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def server(sqlite_url: str, clock: Clock) -> Iterator[tuple[str, Authenticator]]:
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    reg.clock = clock
    try:
        with serving(build_app(reg, settings, run_worker=False)) as url:
            yield url, Authenticator(reg, settings)
    finally:
        reg.store.dispose()


def _bearer(auth: Authenticator, ttl: int = 600) -> dict[str, str]:
    return {"Authorization": f"Bearer {auth.mint('tester', ['viewer'], ttl)}"}


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_only_post_on_the_stateless_mcp_endpoint(server: Any, method: str) -> None:
    """The SDK's stateless GET opens an event stream that never sends nor ends: each one
    would hold a connection for ever. It is refused at once instead."""
    url, auth = server
    with httpx.Client(timeout=3) as client:
        r = client.request(method, f"{url}/mcp", headers={**SSE, **_bearer(auth)})
        assert r.status_code == 405, r.text
        assert r.headers["allow"] == "POST"
        assert r.headers["content-type"].startswith("application/json")
        assert "POST" in r.json()["error"]["message"]
        r = client.request(method, f"{url}/mcp", headers=SSE)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"
        r = client.post(f"{url}/mcp", headers={**SSE, **_bearer(auth)},
                        json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert r.status_code == 200, r.text


def test_a_verified_token_is_kept_and_reused(server: Any) -> None:
    _, auth = server
    header = _bearer(auth)["Authorization"]
    first = auth.actor(header)
    assert auth.actor(header) is first  # from the cache: no second verification


def test_a_cached_token_is_refused_once_it_expires(server: Any, clock: Clock) -> None:
    """Kept in the server's cache, a token is still refused from its `exp` second on; a
    fresh verifier (no cache) refuses it the same way."""
    url, auth = server
    header = _bearer(auth, ttl=60)
    exp = jwt.decode(header["Authorization"][7:], options={"verify_signature": False})["exp"]
    assert exp == clock().timestamp() + 60
    with httpx.Client(timeout=5) as client:
        assert client.get(f"{url}/api/v1/tools", headers=header).status_code == 200
        clock.move(timedelta(seconds=59))
        assert client.get(f"{url}/api/v1/tools", headers=header).status_code == 200
        clock.move(timedelta(seconds=1))
        r = client.get(f"{url}/api/v1/tools", headers=header)
        assert r.status_code == 401, r.text[:300]
        assert r.json()["error"]["code"] == "unauthenticated"
        assert r.json()["error"]["message"] == "the token has expired"
    with pytest.raises(ShopfloorError) as info:
        auth.actor(header["Authorization"])
    assert info.value.code == "unauthenticated"
    assert info.value.message == "the token has expired"
    assert info.value.details == {"reason": "expired"}


def test_a_token_is_refused_before_its_time_by_the_same_clock(server: Any,
                                                              clock: Clock) -> None:
    """`iat` and `nbf` read the registry's clock too: a token from its future is refused."""
    _, auth = server
    clock.move(timedelta(minutes=5))
    ahead = auth.mint("tester", ["viewer"], 600)
    clock.move(timedelta(minutes=-5))
    with pytest.raises(ShopfloorError) as info:
        auth.actor(f"Bearer {ahead}")
    assert info.value.message == "invalid token: ImmatureSignatureError"


def test_the_cache_is_bounded_and_never_trusts_an_unverified_token(server: Any) -> None:
    _, auth = server
    for i in range(3000):
        auth.actor(f"Bearer {auth.mint(f'user{i}', ['viewer'], 600)}")
    assert auth.cached_tokens <= 1024
    good = auth.mint("tester", ["viewer"], 600)
    auth.actor(f"Bearer {good}")
    head, body, _ = good.split(".")
    with pytest.raises(ShopfloorError) as info:
        auth.actor(f"Bearer {head}.{body}.AAAA")
    assert info.value.code == "unauthenticated"


def _call(meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "search_items", "arguments": {"limit": 1}}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}


def test_a_call_that_streams_nothing_is_answered_with_one_json_body(server: Any) -> None:
    """No event stream where nothing precedes the answer: JSON costs client and server
    less, and a big answer meets no per-event size cap."""
    url, auth = server
    with httpx.Client(timeout=10) as client:
        r = client.post(f"{url}/mcp", headers={**SSE, **_bearer(auth)}, json=_call())
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["id"] == 7 and r.json()["result"]["isError"] is False
        # initialize and list answer the same way
        r = client.post(f"{url}/mcp", headers={**SSE, **_bearer(auth)},
                        json={"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["result"]["tools"]


def test_a_call_asking_for_progress_gets_an_event_stream(server: Any) -> None:
    url, auth = server
    with httpx.Client(timeout=10) as client:
        r = client.post(f"{url}/mcp", headers={**SSE, **_bearer(auth)},
                        json=_call({"progressToken": "p1"}))
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [line for line in r.text.splitlines() if line.startswith("data:")]
        assert events and '"id":7' in events[-1].replace(" ", "")
        # a token on anything but a tools/call, or a null token, streams nothing
        r = client.post(f"{url}/mcp", headers={**SSE, **_bearer(auth)},
                        json=_call({"progressToken": None}))
        assert r.headers["content-type"].startswith("application/json")


def test_a_chunked_body_over_the_limit_is_refused_as_it_is_read(server: Any) -> None:
    url, auth = server

    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "'
        for _ in range(5):
            yield b"x" * (1024 * 1024)
        yield b'"}}'

    with httpx.Client(timeout=10) as client:
        r = client.post(f"{url}/mcp", content=chunks(), headers={
            **SSE, **_bearer(auth), "Content-Type": "application/json"})
        assert r.status_code == 413
        assert r.json()["error"]["code"] == -32600
