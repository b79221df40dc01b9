"""A bearer token must name this deployment as its issuer and its API as its audience,
always: `shopfloor init` stores both (like the signing secret), every token Shopfloor
mints carries them, and a token signed with the right key but naming another issuer or
audience, or none, is refused. A database initialised before this gets both when `init`
runs again. With an identity provider (JWKS_URL), its issuer and audience are settings,
required and verified the same way."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest
from sqlalchemy import select

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.engine import Store
from shopfloor.store.tables import Meta
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.servers import serving, serving_registry
from tests.surfaces.contract.surfaces import Ran, cli_in_process

PASSWORD = "issuer test password"


@pytest.fixture
def server(registry: Registry, db_url: str) -> Iterator[tuple[str, Registry, Settings]]:
    with serving_registry(registry, db_url) as url:
        yield url, registry, Settings(database_url=db_url)  # the settings it serves with


def _claims(token: str) -> dict[str, Any]:
    claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return claims


def _meta(store: Store) -> dict[str, str]:
    with store.reading() as s:
        return {m.key: m.value for m in s.scalars(select(Meta))}


def _forge(registry: Registry, **claims: Any) -> str:
    """Signed with this deployment's own key: only the claims are wrong."""
    base = {"sub": "mallory", "roles": ["admin"], "exp": int(time.time()) + 600}
    return jwt.encode({**base, **claims}, registry.key("jwt"), algorithm="HS256")


def _status(url: str, token: str) -> int:
    return httpx.get(f"{url}/api/v1/tools",
                     headers={"Authorization": f"Bearer {token}"}).status_code


def test_a_token_from_another_issuer_or_audience_is_refused(
        server: tuple[str, Registry, Settings]) -> None:
    url, registry, settings = server
    stored = _meta(registry.store)
    iss, aud = stored["jwt_issuer"], stored["jwt_audience"]
    assert iss and aud
    assert _status(url, _forge(registry, iss=iss, aud=aud)) == 200
    for claims in ({"iss": "https://evil.example", "aud": aud},
                   {"iss": "https://evil.example"}, {},
                   {"aud": aud}, {"iss": iss}, {"iss": iss, "aud": "someone-else"},
                   {"iss": iss, "aud": ["someone-else"]}):
        assert _status(url, _forge(registry, **claims)) == 401, claims
    with pytest.raises(ShopfloorError) as info:
        Authenticator(registry, settings).actor(
            f"Bearer {_forge(registry, iss='https://evil.example', aud=aud)}")
    assert info.value.code == "unauthenticated"


def test_every_token_shopfloor_mints_names_its_issuer_and_audience(
        server: tuple[str, Registry, Settings]) -> None:
    url, registry, settings = server
    stored = _meta(registry.store)
    wanted = {"iss": stored["jwt_issuer"], "aud": stored["jwt_audience"]}
    Accounts(registry.store).create("ivy", PASSWORD, "viewer")
    minted = Authenticator(registry, settings).mint("robot", ["viewer"], 600)
    flow = httpx.post(f"{url}/api/v1/auth/token",
                      data={"username": "ivy", "password": PASSWORD}).json()["access_token"]
    with httpx.Client(base_url=url, headers={"Origin": url}) as browser:
        browser.post("/sign-in", data={"username": "ivy", "password": PASSWORD})
        cookie = browser.cookies["shopfloor_session"]
    for token in (minted, flow, cookie):
        claims = _claims(token)
        assert {k: claims.get(k) for k in wanted} == wanted
        assert _status(url, token) == 200


def _cli(url: str, *args: str) -> Ran:
    """`shopfloor ARGS` through the CLI's main in this process."""
    return cli_in_process(list(args), {"SHOPFLOOR_DATABASE_URL": url})


def test_init_gives_an_older_database_an_issuer_and_audience(tmp_path: Any) -> None:
    """A database as `init` left it before: schema 0009, a secret, no issuer."""
    from alembic import command
    from alembic.config import Config

    from shopfloor.store import migrate

    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(migrate._SCRIPTS))
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0009")
    with store.writing() as s:
        s.add(Meta(key="secret", value="an old deployment's secret"))
        s.commit()

    init = _cli(url, "init")
    assert init.returncode == 0, init.stderr
    after = _meta(store)
    assert after["secret"] == "an old deployment's secret"
    assert after["jwt_issuer"] and after["jwt_audience"]
    assert _cli(url, "init").returncode == 0
    assert _meta(store) == after  # a second init changes nothing

    made = _cli(url, "token", "create", "--role", "viewer")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    claims = _claims(token)
    assert (claims["iss"], claims["aud"]) == (after["jwt_issuer"], after["jwt_audience"])
    from shopfloor.app.wiring import open_registry

    registry = open_registry(Settings(database_url=url))
    try:
        actor = Authenticator(registry, Settings(database_url=url)).actor(f"Bearer {token}")
        assert actor.subject == "admin"
    finally:
        registry.store.dispose()
        store.dispose()


def test_an_identity_providers_issuer_and_audience_are_settings(
        registry: Registry, db_url: str) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    public.update({"kid": "idp-1", "use": "sig", "alg": "RS256"})

    async def jwks(_: object) -> JSONResponse:
        return JSONResponse({"keys": [public]})

    def idp_token(**claims: Any) -> str:
        return jwt.encode({"sub": "sso-sam", "roles": ["viewer"], "exp": 4102444800, **claims},
                          key, algorithm="RS256", headers={"kid": "idp-1"})

    with serving(Starlette(routes=[Route("/jwks.json", jwks)])) as idp:
        with pytest.raises(ShopfloorError, match="JWT_AUDIENCE"):
            Authenticator(registry, Settings(database_url=db_url, jwks_url=f"{idp}/jwks.json",
                                             jwt_issuer="https://id.example"))
        settings = Settings(database_url=db_url, jwks_url=f"{idp}/jwks.json",
                            jwt_issuer="https://id.example", jwt_audience="shopfloor-prod")
        with serving(build_app(registry, settings, run_worker=False)) as url:
            good = idp_token(iss="https://id.example", aud="shopfloor-prod")
            assert _status(url, good) == 200
            for claims in ({}, {"iss": "https://id.example"},
                           {"iss": "https://evil.example", "aud": "shopfloor-prod"},
                           {"iss": "https://id.example", "aud": "shopfloor-test"}):
                assert _status(url, idp_token(**claims)) == 401, claims
            local = Authenticator(registry, settings).mint("robot", ["viewer"], 600)
            assert _status(url, local) == 200  # the deployment's own tokens still work
            assert _claims(local)["iss"] != "https://id.example"
