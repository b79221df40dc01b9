"""The company page (issue 29) over HTTP on both databases: no letterhead yet; the
letterhead set through the tool's own form with a logo file (the form's file field sends
its bytes as base64), shown on the page with the logo; a viewer sees it without Edit."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from html import unescape

import pytest
from starlette.testclient import TestClient

from shopfloor.registry.registry import Registry
from tests.base.test_company_profile import png
from tests.helpers import ADMIN
from tests.servers import admin_client

pytestmark = pytest.mark.quick


@pytest.fixture
def app(registry: Registry, db_url: str) -> Iterator[TestClient]:
    with admin_client(registry, db_url, Origin="http://testserver") as c:  # a page of its own
        yield c


def test_the_letterhead_is_set_from_its_page(app: TestClient, registry: Registry) -> None:
    page = app.get("/company").text
    assert 'id="no-letterhead"' in page and 'href="/company"' in page
    edit = unescape(page.split('id="edit-letterhead"', 1)[0].rsplit('href="', 1)[1]
                    .split('"', 1)[0])
    form = app.get(edit).text
    assert 'type="file" data-base64="logo" accept="image/png,image/svg+xml"' in form
    csrf = form.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    sent = {"csrf": csrf, "name": "Brightwood Ltd", "address": "1 Mill Lane\r\nLeeds",
            "logo": base64.b64encode(png()).decode(), "clear_logo": "false"}
    preview = app.post("/tools/set_company_profile/preview", data=sent).text
    token = re.search(r'name="preview_token" value="([^"]+)"', preview)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', preview)
    assert token and key, preview[-800:]
    done = app.post("/tools/set_company_profile/apply", data={
        **sent, "preview_token": token.group(1), "idempotency_key": key.group(1)})
    assert 'id="applied"' in done.text, done.text[-800:]
    page = app.get("/company").text
    assert "1 Mill Lane<br>Leeds" in page and 'src="data:image/png;base64,' in page
    edit = unescape(page.split('id="edit-letterhead"', 1)[0].rsplit('href="', 1)[1]
                    .split('"', 1)[0])
    assert "name=Brightwood+Ltd" in edit and "logo" not in edit  # the logo stays as it is
    assert registry.invoke("get_company_profile", {}, ADMIN)["logo_type"] == "image/png"


def test_a_viewer_sees_the_letterhead_without_edit(app: TestClient, registry: Registry,
                                                   db_url: str) -> None:
    registry.invoke("set_company_profile", {"name": "Brightwood Ltd", "preview": False}, ADMIN)
    app.cookies.set("shopfloor_session",
                    app.app.state.auth.mint("vera", ["viewer"], 600))  # type: ignore[attr-defined]
    page = app.get("/company").text
    assert "Brightwood Ltd" in page and 'id="edit-letterhead"' not in page
