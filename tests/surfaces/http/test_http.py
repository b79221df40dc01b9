"""HTTP: bearer JWT roles enforced by the registry, coded errors, OpenAPI per tool."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.servers import serving


@pytest.fixture
def server(sqlite_url: str) -> Iterator[tuple[str, Registry, Authenticator]]:
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    Given(reg).company()
    with serving(build_app(reg, settings)) as url:
        yield url, reg, Authenticator(reg, settings)


def _h(auth: Authenticator, role: str, subject: str = "tester") -> dict[str, str]:
    return {"Authorization": f"Bearer {auth.mint(subject, [role], 600)}"}


def test_no_expired_or_forged_token_is_401(server: Any) -> None:
    url, reg, _ = server
    assert httpx.get(f"{url}/healthz").status_code == 200
    assert httpx.get(f"{url}/api/v1/tools").status_code == 401
    expired = jwt.encode({"sub": "x", "roles": ["admin"], "exp": int(time.time()) - 10},
                         reg.key("jwt"), algorithm="HS256")
    forged = jwt.encode({"sub": "x", "roles": ["admin"], "exp": int(time.time()) + 60},
                        b"not-the-key-but-just-as-long-as-one", algorithm="HS256")
    for token in (expired, forged, "garbage"):
        r = httpx.post(f"{url}/api/v1/tools/get_stock", json={},
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401
        assert r.json()["error"]["code"] == "unauthenticated"
        r = httpx.post(f"{url}/mcp", headers={"Authorization": f"Bearer {token}"},
                       json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        assert r.json()["error"]["code"] == "unauthenticated"


def test_viewer_is_refused_every_write_and_operator_every_admin_tool(server: Any) -> None:
    url, reg, auth = server
    viewer, operator = _h(auth, "viewer"), _h(auth, "operator")
    for t in reg.tools():
        r = httpx.post(f"{url}/api/v1/tools/{t.name}", json={}, headers=viewer)
        if t.facts.writes or t.facts.job or t.facts.role.name != "viewer":
            assert r.status_code == 403, t.name
            assert r.json()["error"]["code"] == "forbidden"
        else:
            assert r.status_code != 403, t.name
        if t.facts.role.name == "admin":
            r = httpx.post(f"{url}/api/v1/tools/{t.name}", json={}, headers=operator)
            assert r.status_code == 403, t.name


def test_calls_and_error_statuses(server: Any) -> None:
    url, _, auth = server
    admin = _h(auth, "admin", "alice")
    r = httpx.post(f"{url}/api/v1/tools/get_stock", json={"sku": "M1"}, headers=admin)
    assert r.status_code == 200 and r.json() == {"balances": [], "next_cursor": None}
    r = httpx.post(f"{url}/api/v1/tools/get_item", json={"sku": "NOPE"}, headers=admin)
    assert r.status_code == 404 and r.json()["error"]["field"] == "sku"
    r = httpx.post(f"{url}/api/v1/tools/create_location", json={"code": "X"}, headers=admin)
    assert r.status_code == 422 and r.json()["error"]["field"] == "name"
    r = httpx.post(f"{url}/api/v1/tools/get_stock", content=b"{nope", headers=admin)
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    r = httpx.post(f"{url}/api/v1/tools/nope", json={}, headers=admin)
    assert r.status_code == 404
    preview = httpx.post(f"{url}/api/v1/tools/create_stock_adjustment", headers=admin, json={
        "location": "MAIN", "reason": "x", "lines": [{"sku": "M1", "quantity_delta": 2}]}).json()
    applied = httpx.post(f"{url}/api/v1/tools/create_stock_adjustment", headers=admin,
                         json=preview["apply"]["arguments"]).json()
    assert applied["applied"] is True
    log = httpx.post(f"{url}/api/v1/tools/get_operation_log", json={}, headers=admin).json()
    assert log["entries"][0]["actor"] == "alice"


def test_openapi_has_one_typed_operation_per_tool(server: Any) -> None:
    url, reg, _ = server
    doc = httpx.get(f"{url}/openapi.json").json()
    ops = {p.rsplit("/", 1)[1]: v["post"] for p, v in doc["paths"].items()}
    assert set(ops) == {t.name for t in reg.tools()}
    for name, op in ops.items():
        ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.rsplit("/", 1)[1] in doc["components"]["schemas"], name
    assert "$defs" not in str(doc["paths"])
