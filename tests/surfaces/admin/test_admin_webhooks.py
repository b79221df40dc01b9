"""The admin's webhooks page: the webhooks, and each delivery with its tries and its last
answer or error (a failing receiver is seen there); admins only."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import httpx

from shopfloor.app.accounts import Accounts
from shopfloor.app.delivery import Deliverer
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import apply
from tests.receiver import receiving
from tests.servers import serving

PASSWORD = "hooks password"


@contextmanager
def _signed_in(url: str, who: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        signed = c.post("/sign-in", data={"username": who, "password": PASSWORD,
                                          "next": "/"})
        assert signed.status_code == 303
        yield c


def test_the_page_shows_webhooks_and_a_failing_delivery(sqlite_url: str) -> None:
    settings = Settings(database_url=sqlite_url, webhook_allow_private=True)
    reg = open_registry(settings)
    Accounts(reg.store).create("ada", PASSWORD, "admin")
    Accounts(reg.store).create("otto", PASSWORD, "operator")
    try:
        with receiving([503]) as rec:
            hook = apply(reg, "create_webhook", url=rec.url, events=["operation.applied"])
            Given(reg).location()
            sender = Deliverer(reg.store, name="page", allow_private=True,
                               lease=timedelta(seconds=30), timeout=5)
            try:
                sender.step()
            finally:
                sender.close()
            assert len(rec.received) == 1
        with serving(build_app(reg, settings, run_worker=False)) as url:
            with _signed_in(url, "ada") as c:
                assert 'href="/webhooks"' in c.get("/").text
                page = c.get("/webhooks")
                assert page.status_code == 200
                assert rec.url in page.text and hook["webhook_id"] in page.text
                assert "HTTP 503" in page.text and "operation.applied" in page.text
                assert hook["secret"] not in page.text
                failing = c.get("/webhooks", params={"status": "delivered"})
                assert "HTTP 503" not in failing.text
            with _signed_in(url, "otto") as c:
                assert 'href="/webhooks"' not in c.get("/").text
                assert c.get("/webhooks").status_code == 403
    finally:
        reg.store.dispose()
