"""Another site cannot make a browser act on the admin (login CSRF included), on both
databases: a state-changing request whose Origin (or, without one, Referer) is another
site's is refused with 403 and changes nothing. The sign-in form has no CSRF token, so a
sign-in naming no origin at all is refused too, and so is every signed-in POST, previews
included (issue 30: `/tools/{name}/preview` took one naming neither)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import func, select

from shopfloor.registry.registry import Registry
from shopfloor.store.tables.accounts import AccountSession
from tests.helpers import ADMIN, snapshot
from tests.servers import serving_registry

PASSWORD = "a password of hers"
EVIL = "http://evil.example"


@pytest.fixture
def server(registry: Registry, db_url: str) -> Iterator[tuple[str, Registry]]:
    with serving_registry(registry, db_url, ("ann", PASSWORD, "admin")) as url:
        yield url, registry


def _sessions(registry: Registry) -> int:
    with registry.store.reading() as s:
        return int(s.execute(select(func.count()).select_from(AccountSession)).scalar() or 0)


def _sign_in(client: httpx.Client, headers: dict[str, str]) -> httpx.Response:
    return client.post("/sign-in", headers=headers,
                       data={"username": "ann", "password": PASSWORD, "next": "/"})


def _sign_in_from(url: str, headers: dict[str, str]) -> httpx.Response:
    """A sign-in from a client of its own sending these headers (SAME in them: this
    site's address)."""
    with httpx.Client(base_url=url) as client:
        return _sign_in(client, {k: v.replace("SAME", url) for k, v in headers.items()})


def _signed_in_form(client: httpx.Client, **fields: str) -> dict[str, str]:
    """Signed in from this site: the create_location form's fields with its CSRF token."""
    assert _sign_in(client, {}).status_code == 303
    page = client.get("/tools/create_location").text
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert match
    return {"csrf": match.group(1), **fields}


@pytest.mark.parametrize("headers", [
    {"Origin": EVIL},
    {"Origin": EVIL, "Referer": "SAME/sign-in"},
    {"Referer": EVIL + "/login.html"},
    {"Origin": "null"},
    {},
], ids=["origin", "origin-over-referer", "referer", "opaque", "none"])
def test_a_cross_site_sign_in_is_refused(server: tuple[str, Registry],
                                          headers: dict[str, str]) -> None:
    url, registry = server
    refused = _sign_in_from(url, headers)
    assert refused.status_code == 403, refused.text
    assert "set-cookie" not in refused.headers
    assert _sessions(registry) == 0


@pytest.mark.parametrize("headers", [{"Origin": "SAME"}, {"Referer": "SAME/sign-in?next=/"}],
                         ids=["origin", "referer"])
def test_a_sign_in_from_this_site_goes_through(server: tuple[str, Registry],
                                               headers: dict[str, str]) -> None:
    url, registry = server
    signed = _sign_in_from(url, headers)
    assert signed.status_code == 303 and "shopfloor_session" in signed.cookies
    assert _sessions(registry) == 1


def test_pages_let_this_site_name_itself() -> None:
    """A page's Referrer-Policy decides what Origin its own form posts carry: under
    no-referrer a browser sends `Origin: null`, which the check must refuse."""
    from shopfloor.surfaces.admin.core import HEADERS

    assert HEADERS["Referrer-Policy"] == "same-origin"


def test_a_cross_site_write_or_sign_out_is_refused(server: tuple[str, Registry]) -> None:
    url, registry = server
    with httpx.Client(base_url=url, headers={"Origin": url}) as client:
        form = _signed_in_form(client, code="EVIL", name="Planted")
        preview = client.post("/tools/create_location/preview", data=form)
        assert preview.status_code == 200, preview.text[-500:]
        token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
        key = re.search(r'name="idempotency_key" value="([^"]+)"', preview.text)
        assert token and key
        confirm = {**form, "preview_token": token.group(1), "idempotency_key": key.group(1)}
        quiet = snapshot(registry)
        for hostile in ({"Origin": EVIL}, {"Origin": "null"},
                        {"Origin": "", "Referer": EVIL + "/x"}):
            refused = client.post("/tools/create_location/apply", data=confirm,
                                  headers=hostile)
            assert refused.status_code == 403, (hostile, refused.text[-300:])
            out = client.post("/sign-out", data={"csrf": form["csrf"]}, headers=hostile)
            assert out.status_code == 403
        assert snapshot(registry) == quiet
        assert client.get("/tools").status_code == 200  # still signed in
        done = client.post("/tools/create_location/apply", data=confirm,
                           headers={"Origin": "", "Referer": url + "/tools/create_location"})
        assert done.status_code == 200, done.text[-500:]
        codes = [loc["code"] for loc in
                 registry.invoke("list_locations", {}, ADMIN)["locations"]]
        assert "EVIL" in codes


def test_a_post_naming_no_origin_is_refused_previews_included(
        server: tuple[str, Registry]) -> None:
    url, registry = server
    with httpx.Client(base_url=url, headers={"Origin": url}) as client:
        form = _signed_in_form(client, code="ANON", name="Unnamed")
        quiet = snapshot(registry)
        for path in ("/tools/create_location/preview", "/tools/create_location/apply",
                     "/sign-out"):
            for nameless in ({"Origin": ""}, {"Origin": "", "Referer": ""}):
                refused = client.post(path, data=form, headers=nameless)
                assert refused.status_code == 403, (path, nameless, refused.text[-300:])
                assert "named no page of this site" in refused.text
        assert snapshot(registry) == quiet
        shown = client.post("/tools/create_location/preview", data=form,
                            headers={"Origin": "", "Referer": url + "/tools/create_location"})
        assert shown.status_code == 200, shown.text[-300:]
