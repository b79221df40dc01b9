"""Signing in like a person, on both databases: `shopfloor user create` (password from
stdin), the OAuth2 password flow at POST /api/v1/auth/token, sign-out, and sessions that
end when the account changes; minted tokens keep working alongside."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.helpers import ADMIN
from tests.servers import serving, serving_registry
from tests.surfaces.contract.surfaces import cli_in_process

PASSWORD = "s3cret enough"


@pytest.fixture
def server(registry: Registry, db_url: str) -> Iterator[tuple[str, Registry, Settings]]:
    with serving_registry(registry, db_url) as url:
        yield url, registry, Settings(database_url=db_url)  # the settings it serves with


def _token(url: str, username: str, password: str) -> httpx.Response:
    return httpx.post(f"{url}/api/v1/auth/token",
                      data={"grant_type": "password", "username": username,
                            "password": password})


def _tools(url: str, token: str) -> httpx.Response:
    return httpx.get(f"{url}/api/v1/tools", headers={"Authorization": f"Bearer {token}"})


def test_user_created_from_stdin_signs_in_and_out(
        server: tuple[str, Registry, Settings], db_url: str) -> None:
    url, reg, settings = server
    status, stdout, stderr = cli_in_process(
        ["--db", db_url, "user", "create", "maria", "--role", "operator"], {},
        stdin=PASSWORD + "\n")
    assert status == 0, stderr
    assert PASSWORD not in stdout + stderr
    status, _, stderr = cli_in_process(
        ["--db", db_url, "user", "create", "maria", "--role", "operator"], {},
        stdin=PASSWORD + "\n")
    assert status == 4 and "exists" in stderr

    r = _token(url, "maria", PASSWORD)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["token_type"] == "bearer" and body["expires_in"] == 480 * 60
    assert set(body) == {"access_token", "token_type", "expires_in"}
    assert r.headers["cache-control"] == "no-store"
    assert _tools(url, body["access_token"]).status_code == 200
    who = httpx.post(f"{url}/api/v1/tools/create_location",
                     headers={"Authorization": f"Bearer {body['access_token']}"},
                     json={"code": "X", "name": "X", "preview": False})
    assert who.status_code == 200
    log = reg.invoke("get_operation_log", {"tool": "create_location"},
                     Authenticator(reg, settings).actor(f"Bearer {body['access_token']}"))
    assert log["entries"][0]["actor"] == "maria"

    out = httpx.post(f"{url}/api/v1/auth/sign-out",
                     headers={"Authorization": f"Bearer {body['access_token']}"})
    assert out.json() == {"signed_out": True}
    refused = _tools(url, body["access_token"])
    assert refused.status_code == 401
    assert refused.json()["error"]["details"]["reason"] == "signed_out"


def test_wrong_passwords_and_malformed_requests(server: tuple[str, Registry, Settings]) -> None:
    url, reg, _ = server
    Accounts(reg.store).create("ivan", PASSWORD, "viewer")
    wrong = _token(url, "ivan", "not it at all")
    unknown = _token(url, "nobody", PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json()["error"]["message"] == unknown.json()["error"]["message"] == \
        "wrong username or password"
    assert wrong.headers["www-authenticate"].startswith("Bearer")
    as_json = httpx.post(f"{url}/api/v1/auth/token",
                         json={"username": "ivan", "password": PASSWORD})
    assert as_json.status_code == 400
    missing = httpx.post(f"{url}/api/v1/auth/token", data={"username": "ivan"})
    assert missing.status_code == 400 and missing.json()["error"]["field"] == "password"
    grant = httpx.post(f"{url}/api/v1/auth/token",
                       data={"grant_type": "client_credentials", "username": "ivan",
                             "password": PASSWORD})
    assert grant.status_code == 400 and grant.json()["error"]["field"] == "grant_type"
    with pytest.raises(Exception, match="8 to 1024"):
        Accounts(reg.store).create("shorty", "short", "viewer")
    with pytest.raises(Exception, match="unknown role"):
        Accounts(reg.store).create("boss", PASSWORD, "owner")


def test_account_changes_end_sessions_and_minted_tokens_still_work(
        server: tuple[str, Registry, Settings]) -> None:
    url, reg, settings = server
    accounts = Accounts(reg.store)
    accounts.create("lena", PASSWORD, "operator")
    first = _token(url, "lena", PASSWORD).json()["access_token"]
    assert _tools(url, first).status_code == 200
    accounts.set_password("lena", "a brand new password")
    ended = _tools(url, first)
    assert ended.status_code == 401 and ended.json()["error"]["details"]["reason"] == "revoked"
    assert _token(url, "lena", PASSWORD).status_code == 401
    second = _token(url, "lena", "a brand new password").json()["access_token"]
    accounts.set_disabled("lena", True)
    assert _tools(url, second).status_code == 401
    assert _token(url, "lena", "a brand new password").json()["error"]["message"] == \
        "this account is disabled"

    minted = Authenticator(reg, settings).mint("robot", ["viewer"], 600)
    assert _tools(url, minted).status_code == 200
    out = httpx.post(f"{url}/api/v1/auth/sign-out", headers={"Authorization": f"Bearer {minted}"})
    assert out.json() == {"signed_out": False}
    assert _tools(url, minted).status_code == 200
    assert accounts.list()[0]["username"] == "lena"


def test_an_identity_provider_token_works_on_the_api_and_signs_in_to_the_admin(
        registry: Registry, db_url: str) -> None:
    """JWKS_URL: an RS256 token from an external identity provider (here a JWKS served
    locally) is accepted by the API and by the admin's token sign-in."""
    import json

    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    public.update({"kid": "idp-1", "use": "sig", "alg": "RS256"})

    async def jwks(_: object) -> JSONResponse:
        return JSONResponse({"keys": [public]})

    with serving(Starlette(routes=[Route("/jwks.json", jwks)])) as idp:
        settings = Settings(database_url=db_url, jwks_url=f"{idp}/jwks.json",
                            jwt_issuer="https://id.example", jwt_audience="shopfloor")
        token = jwt.encode({"sub": "sso-sam", "roles": ["operator"], "exp": 4102444800,
                            "iss": "https://id.example", "aud": "shopfloor"},
                           key, algorithm="RS256", headers={"kid": "idp-1"})
        with serving(build_app(registry, settings, run_worker=False)) as url:
            assert _tools(url, token).status_code == 200
            with httpx.Client(base_url=url, headers={"Origin": url}) as browser:
                signed = browser.post("/sign-in", data={"access_token": token, "next": "/log"})
                assert signed.status_code == 303 and signed.headers["location"] == "/log"
                page = browser.get("/log")
                assert page.status_code == 200 and "sso-sam" in page.text


def _cli(db_url: str, *args: str, stdin: str = "") -> str:
    """`shopfloor --db URL ARGS` through the CLI's main in this process: its stdout."""
    status, stdout, stderr = cli_in_process(["--db", db_url, *args], {}, stdin=stdin)
    assert status == 0, stderr
    return stdout


def test_accounts_and_tokens_made_to_need_approval_propose_and_never_apply(
        server: tuple[str, Registry, Settings], db_url: str) -> None:
    """The CLI's `--needs-approval` (an account's flag, a minted token's claim): its
    writes over HTTP are held as proposals; taking the flag off lets them apply again."""
    url, reg, _ = server
    _cli(db_url, "user", "create", "agent", "--role", "operator", "--needs-approval",
         stdin=PASSWORD + "\n")
    minted = _cli(db_url, "token", "create", "--role", "operator", "--subject", "bot",
                  "--needs-approval").strip()
    signed_in = _token(url, "agent", PASSWORD).json()["access_token"]

    def write(token: str, code: str) -> dict[str, object]:
        r = httpx.post(f"{url}/api/v1/tools/create_location", json={
            "code": code, "name": code, "preview": False},
            headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        body: dict[str, object] = r.json()
        return body

    for token, code in ((signed_in, "HELD1"), (minted, "HELD2")):
        held = write(token, code)
        assert (held["applied"], held["proposed"], held["status"]) == (False, True, "pending")
    listed = reg.invoke("list_locations", {}, ADMIN)["locations"]
    assert not {"HELD1", "HELD2"} & {loc["code"] for loc in listed}
    users = {u["username"]: u for u in reg.invoke("list_users", {}, ADMIN)["users"]}
    assert users["agent"]["needs_approval"] is True

    _cli(db_url, "user", "role", "agent", "--role", "operator", "--no-approval")
    again = _token(url, "agent", PASSWORD).json()["access_token"]  # the change ended sessions
    assert write(again, "NOW")["applied"] is True
