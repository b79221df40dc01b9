"""The preview card draws money in the books' currency, read from the database when the
card is served, not in whatever SHOPFLOOR_CURRENCY says now: a company whose books were
started in dollars sees dollars on a server later set to euros."""

from __future__ import annotations

import anyio
import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import PREVIEW_URI
from tests.servers import serving
from tests.surfaces.mcp.clients import http_session


def test_the_preview_card_carries_the_books_currency(sqlite_url: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    open_registry(Settings(database_url=sqlite_url, currency="USD")).store.dispose()
    monkeypatch.setenv("SHOPFLOOR_CURRENCY", "EUR")
    settings = Settings(database_url=sqlite_url, currency="EUR")
    reg = open_registry(settings)
    token = Authenticator(reg, settings).mint("card-reader", ["viewer"], 600)

    async def read() -> str:
        with serving(build_app(reg, settings, run_worker=False)) as url:
            async with http_session(url, token) as session:
                card = (await session.read_resource(PREVIEW_URI)).contents[0]
                return str(getattr(card, "text", ""))

    html = anyio.run(read)
    reg.store.dispose()
    assert 'data-currency="USD"' in html and 'data-currency="EUR"' not in html
