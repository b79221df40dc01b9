"""Where the stock's value sits: get_stock_valuation's breakdown by item kind and by
location (now, at a day's end, over a period, within a filter), on both databases, and
the valuation page's two bar charts drawing those figures.

The company is test_valuation's, whose figures are worked out by hand there: now M1 is
16 at MAIN and 10 at SHOP, M2 20 at MAIN (materials), P1 4 at MAIN (a product).
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any
from xml.etree import ElementTree

import httpx

from shopfloor.registry.registry import Registry
from tests.servers import serving_registry
from tests.stock.test_valuation import PASSWORD, company, valuation

SVG = "{http://www.w3.org/2000/svg}"


def split(result: dict[str, Any]) -> tuple[dict[str, D], dict[str, D]]:
    return ({k: D(v) for k, v in result["by_kind"].items()},
            {k: D(v) for k, v in result["by_location"].items()})


def test_the_breakdown_adds_up_to_the_total(registry: Registry) -> None:
    company(registry)
    now = valuation(registry, breakdown=True)
    assert split(now) == ({"material": D(46), "product": D(4)}, {"MAIN": D(40), "SHOP": D(10)})
    assert list(now["by_kind"]) == ["material", "product"]  # largest first
    jan_10 = valuation(registry, date="2026-01-10", breakdown=True)  # before P1 was made
    assert split(jan_10) == ({"material": D(48)}, {"MAIN": D(38), "SHOP": D(10)})
    feb = valuation(registry, start="2026-02-01", date="2026-02-28", breakdown=True)
    assert split(feb) == split(now)  # the period's closing value, variances apart
    for result in (now, jan_10, feb):
        total = D(result["total"]["value"])
        assert sum(split(result)[0].values()) == sum(split(result)[1].values()) == total
    shop = valuation(registry, location="SHOP", breakdown=True)
    assert split(shop) == ({"material": D(10)}, {"SHOP": D(10)})
    made = valuation(registry, kind="product", date="2026-02-28", breakdown=True)
    assert split(made) == ({"product": D(4)}, {"MAIN": D(4)})
    plain = valuation(registry)
    assert plain["by_kind"] is None and plain["by_location"] is None  # only when asked


def bars_of(page: str, chart: str) -> dict[str, tuple[str, str]]:
    """Each bar of one chart on a page: its name -> (data-value, its title's words)."""
    start = page.index(f'<svg class="chart bars" id="{chart}"')
    svg = ElementTree.fromstring(page[start:page.index("</svg>", start) + 6])
    return {g.get("data-name") or "": (g.get("data-value") or "", g.findtext(f"{SVG}title") or "")
            for g in svg.iter(f"{SVG}g")}


def test_the_valuation_page_draws_value_by_kind_and_by_location(registry: Registry,
                                                                db_url: str) -> None:
    company(registry)
    with serving_registry(registry, db_url, ("vera", PASSWORD, "viewer")) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        c.post("/sign-in", data={"username": "vera", "password": PASSWORD, "next": "/"})
        page = c.get("/valuation", headers={"Accept-Language": "en-GB"}).text
        assert bars_of(page, "value-by-kind") == {"Material": ("46", "Material: €46.00"),
                                                  "Product": ("4", "Product: €4.00")}
        assert bars_of(page, "value-by-location") == {"MAIN": ("40", "MAIN: €40.00"),
                                                      "SHOP": ("10", "SHOP: €10.00")}
        assert "<figcaption>By item kind</figcaption>" in page
        jan = c.get("/valuation", params={"date": "2026-01-10"}).text
        assert bars_of(jan, "value-by-location") == {"MAIN": ("38", "MAIN: €38.00"),
                                                     "SHOP": ("10", "SHOP: €10.00")}
        empty = c.get("/valuation", params={"date": "2020-01-01"}).text
        assert "chart bars" not in empty and "No stock with a value here." in empty
