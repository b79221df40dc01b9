"""An order's money on screen is in the order's currency, as on its paper: a purchase
order to a supplier billing in dollars reads in dollars on its page and in the list, next
to a euro one, in a deployment that keeps its books in euros."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.http import create_app
from tests.given import Given
from tests.helpers import apply

pytestmark = pytest.mark.quick


def test_an_orders_money_is_in_its_own_currency(registry: Registry, given: Given,
                                                db_url: str) -> None:
    given.company()
    apply(registry, "create_supplier", name="Far Away Co", currency="USD")
    usd = given.po({"M1": ("1200", "1.0475")}, supplier="Far Away Co")["number"]
    eur = given.po({"M1": ("2", "3.5")})["number"]
    app = create_app(registry, Settings(database_url=db_url, currency="EUR"))
    with TestClient(app, headers={"Accept-Language": "en-GB"}) as client:
        client.cookies.set("shopfloor_session", app.state.auth.mint("vera", ["viewer"], 600))
        page = client.get(f"/purchase-orders/{usd}").text
        assert 'data-value="1.0475">US$1.05<' in page  # the line's price, in dollars
        assert "€" not in page.split("<main", 1)[1]
        listed = client.get("/purchase-orders").text
        row = {n: listed.split(f">{n}<", 1)[1].split("</tr>", 1)[0] for n in (usd, eur)}
        assert "US$1,257.00" in row[usd] and "€" not in row[usd]
        assert "€7.00" in row[eur]
        assert "€7.00" in client.get(f"/purchase-orders/{eur}").text


def test_screens_show_the_books_currency_whatever_the_setting_says_now(
        registry: Registry, given: Given, db_url: str) -> None:
    """Books started in euros (the registry's first open) read in euros on a server now
    set to dollars: a stock value is the books' money, not the setting's."""
    given.company()
    given.stock({"M1": ("4", "2.5")}, reason="count")
    app = create_app(registry, Settings(database_url=db_url, currency="USD"))
    with TestClient(app, headers={"Accept-Language": "en-GB"}) as client:
        client.cookies.set("shopfloor_session", app.state.auth.mint("vera", ["viewer"], 600))
        sheet = client.get("/valuation.csv").text
        assert sheet.splitlines()[1].endswith(",EUR") and "USD" not in sheet, sheet
