"""HTTP edges: a GET on the stateless /mcp is answered at once, and bearer tokens are
verified once per token but still refused the moment they expire."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from shopfloor.app import open_registry
from shopfloor.registry.errors import ShopfloorError
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.servers import serving

SSE = {"Accept": "text/event-stream, application/json"}


@pytest.fixture
def server(sqlite_url: str) -> Iterator[tuple[str, Authenticator]]:
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
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


def test_a_cached_token_is_refused_once_it_expires(server: Any) -> None:
    url, auth = server
    header = _bearer(auth, ttl=4)  # long enough for two calls on a loaded machine
    exp = jwt.decode(header["Authorization"][7:], options={"verify_signature": False})["exp"]
    with httpx.Client(timeout=5) as client:
        assert client.get(f"{url}/api/v1/tools", headers=header).status_code == 200
        assert client.get(f"{url}/api/v1/tools", headers=header).status_code == 200
        time.sleep(max(0.0, exp - time.time()) + 0.2)
        r = client.get(f"{url}/api/v1/tools", headers=header)
        assert r.status_code == 401, r.text
        assert "expired" in r.json()["error"]["message"]
    with pytest.raises(ShopfloorError) as info:
        auth.actor(header["Authorization"])
    assert info.value.code == "unauthenticated"


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
