"""Guessing passwords is throttled, on both databases: per account name and per client
address, answered 429 with Retry-After, the same for a known and an unknown name, on the
API's password flow and the admin's sign-in form alike. The counts live in the database,
so a second server instance sharing it refuses the same guesser; a sign-in that succeeds
once the lock has passed starts the count again. The session cookie is Secure over HTTPS
(a proxy's X-Forwarded-Proto counts when uvicorn trusts the proxy)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.servers import serving, serving_registry

PASSWORD = "the right password"


@pytest.fixture
def server(registry: Registry, db_url: str) -> Iterator[tuple[str, Registry]]:
    with serving_registry(registry, db_url, ("maria", PASSWORD, "operator")) as url:
        yield url, registry


def _token(url: str, username: str, password: str, address: str = "198.51.100.7"
           ) -> httpx.Response:
    """uvicorn trusts X-Forwarded-For from loopback (a local proxy), so each test names
    the client address it speaks for."""
    return httpx.post(f"{url}/api/v1/auth/token", headers={"X-Forwarded-For": address},
                      data={"username": username, "password": password})


def _without_wait(response: httpx.Response) -> dict[str, object]:
    """The error less the seconds left: two locks taken a moment apart (a loaded machine
    answers the second guesser later) can be a second apart and still be the same lock."""
    error = dict(response.json()["error"])
    error["details"] = {k: v for k, v in error["details"].items() if k != "retry_after"}
    error["message"] = re.sub(r"\d+ seconds?", "N seconds", str(error["message"]))
    return error


def test_thirty_wrong_passwords_then_the_right_one_is_refused(
        server: tuple[str, Registry]) -> None:
    url, _ = server
    answers = [_token(url, "maria", f"guess number {n}").status_code for n in range(30)]
    assert answers[0] == 401 and answers[-1] == 429, answers
    right = _token(url, "maria", PASSWORD)
    assert right.status_code == 429, right.text
    assert int(right.headers["retry-after"]) >= 1
    assert right.json()["error"]["code"] == "rate_limited"
    assert "access_token" not in right.json()


def test_an_unknown_name_is_throttled_exactly_like_a_known_one(
        server: tuple[str, Registry]) -> None:
    url, _ = server
    known = [_token(url, "maria", "wrong wrong wrong", "198.51.100.1") for _ in range(7)]
    unknown = [_token(url, "nobody", "wrong wrong wrong", "198.51.100.2") for _ in range(7)]
    assert [r.status_code for r in known] == [r.status_code for r in unknown]
    assert known[-1].status_code == 429
    assert _without_wait(known[-1]) == _without_wait(unknown[-1])
    waits = [int(r.headers["retry-after"]) for r in (known[-1], unknown[-1])]
    assert abs(waits[0] - waits[1]) <= 1, waits


def test_one_address_guessing_many_names_is_throttled(server: tuple[str, Registry]) -> None:
    """Password spraying: one guess at each of many names, from one address."""
    url, _ = server
    codes = [_token(url, f"user{n}", "Summer2026!", "203.0.113.9").status_code
             for n in range(25)]
    assert codes[0] == 401 and codes[-1] == 429, codes
    assert _token(url, "maria", PASSWORD, "203.0.113.9").status_code == 429
    assert _token(url, "maria", PASSWORD, "203.0.113.10").status_code == 200


def test_the_admin_form_is_throttled_too(server: tuple[str, Registry]) -> None:
    url, _ = server
    with httpx.Client(base_url=url, headers={"Origin": url,
                                             "X-Forwarded-For": "192.0.2.5"}) as browser:
        codes = [browser.post("/sign-in", data={"username": "maria", "password": "nope nope"})
                 .status_code for _ in range(8)]
        assert codes[0] == 401 and codes[-1] == 429, codes
        right = browser.post("/sign-in", data={"username": "maria", "password": PASSWORD})
        assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1
        assert "shopfloor_session" not in right.cookies
        assert "Too many failed sign-ins" in right.text
    assert _token(url, "maria", PASSWORD).status_code == 429  # one count for both doors


def test_two_instances_sharing_the_database_share_the_count(
        server: tuple[str, Registry], db_url: str) -> None:
    first, _ = server
    settings = Settings(database_url=db_url)
    other = open_registry(settings)
    try:
        with serving(build_app(other, settings, run_worker=False)) as second:
            for n in range(8):
                _token(first if n % 2 else second, "maria", f"guess {n}")
            assert _token(second, "maria", PASSWORD).status_code == 429
            assert _token(first, "maria", PASSWORD).status_code == 429
    finally:
        other.store.dispose()


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_the_lock_grows_and_a_later_success_starts_again(registry: Registry) -> None:
    clock = Clock()
    accounts = Accounts(registry.store, clock=clock)
    accounts.create("olga", PASSWORD, "viewer")
    ttl = timedelta(hours=1)

    def attempt(password: str) -> str:
        try:
            accounts.sign_in("olga", password, ttl, client="192.0.2.77")
        except ShopfloorError as exc:
            return exc.code
        return "ok"

    assert [attempt("wrong password") for _ in range(5)] == ["unauthenticated"] * 5
    first = _wait(accounts, "olga")
    assert first >= 1 and attempt(PASSWORD) == "rate_limited"
    clock.now += timedelta(seconds=first)
    assert attempt("wrong password") == "unauthenticated"
    second = _wait(accounts, "olga")
    assert second > first  # exponential back-off
    clock.now += timedelta(seconds=second)
    assert attempt(PASSWORD) == "ok"
    assert attempt("wrong password") == "unauthenticated"
    assert attempt("wrong password") == "unauthenticated"  # the count started again


def _wait(accounts: Accounts, username: str) -> int:
    try:
        accounts.sign_in(username, "anything at all", timedelta(hours=1), client="192.0.2.77")
    except ShopfloorError as exc:
        assert exc.code == "rate_limited", exc
        wait = exc.details["retry_after"]
        assert isinstance(wait, int)
        return wait
    raise AssertionError("not throttled")


def test_the_session_cookie_is_secure_over_https(server: tuple[str, Registry]) -> None:
    url, _ = server
    secure_origin = url.replace("http://", "https://")
    with httpx.Client(base_url=url) as browser:
        plain = browser.post("/sign-in", headers={"Origin": url},
                             data={"username": "maria", "password": PASSWORD})
        proxied = browser.post("/sign-in", headers={"Origin": secure_origin,
                                                    "X-Forwarded-Proto": "https"},
                               data={"username": "maria", "password": PASSWORD})
    assert plain.status_code == proxied.status_code == 303
    assert "secure" not in plain.headers["set-cookie"].lower()
    assert "; secure" in proxied.headers["set-cookie"].lower()
