"""The admin's Accounting page over HTTP, on both databases (issue 31): the trial balance
for a period and as at a day, GRNI's balance, the journal filtered by document and by
account, both downloads, the lock date with the lock tool's own form; an Accounting entry
in the menu only for a role that may read the books, and the page refused to one that may
not. A receipt of 10 at 5.00 on 10 November and a shipment of 4 on 2 December make the
figures, worked by hand below."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime

import httpx

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import apply
from tests.servers import serving_registry

PASSWORD = "correct horse battery staple"


def books(reg: Registry) -> str:
    reg.clock = lambda: datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
    Given(reg).company()
    po = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": "M1", "quantity": "10", "unit_price": "5"}])
    apply(reg, "receive_purchase_order", number=po["number"])
    reg.clock = lambda: datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    so = apply(reg, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": "M1", "quantity": "4", "unit_price": "9"}])
    apply(reg, "fulfill_order", number=so["number"])
    reg.clock = lambda: datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
    return str(po["number"])


def row(page: str, account: str) -> list[str]:
    """The figures of one trial-balance row, as their exact values."""
    found = re.search(rf'<tr data-account="{account}">(.*?)</tr>', page, re.S)
    assert found, account
    return re.findall(r'data-value="([^"]+)"', found.group(1))


def journal(page: str) -> str:
    return page[page.index('id="journal"'):]


def test_the_accounting_page_reads_the_books_and_downloads_them(registry: Registry,
                                                                 db_url: str) -> None:
    po = books(registry)
    with serving_registry(registry, db_url, ("ada", PASSWORD, "admin")) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        c.post("/sign-in", data={"username": "ada", "password": PASSWORD, "next": "/"})
        page = c.get("/accounting").text
        assert '<a href="/accounting" aria-current="page">Accounting</a>' in page
        # everything: Inventory 50 in, 20 out; GRNI 50 owed; COGS 20
        assert row(page, "1310") == ["0", "50", "20", "30"]
        assert row(page, "2110") == ["0", "0", "50", "-50"]
        assert row(page, "5000") == ["0", "20", "0", "20"]
        assert re.search(r'id="grni-balance">Account 2110 .*data-value="50"', page)
        assert 'id="lock-now">The books are not locked' in page
        assert 'name="lock_date"' in page and 'action="/tools/set_lock_date/preview"' in page
        assert 'value="2026-11-30"' in page  # the end of last month, suggested

        december = c.get("/accounting", params={"start": "2026-12-01"}).text
        assert row(december, "1310") == ["50", "0", "20", "30"]
        as_at = c.get("/accounting", params={"end": "2026-11-30"}).text
        assert row(as_at, "1310") == ["0", "50", "0", "50"]
        assert 'data-account="5000"' not in as_at

        only = journal(c.get("/accounting", params={"document": po}).text)
        assert only.count('data-entry="') == 2 and "Goods received" in only
        cogs = journal(c.get("/accounting", params={"account": "5000"}).text)
        assert "Goods shipped" in cogs and "Goods received" not in cogs

        got = c.get("/accounting/journal.csv", params={"start": "2026-12-01"})
        assert got.headers["content-type"].startswith("text/csv")
        assert 'filename="journal-2026-12-01-to-2026-12-05.csv"' in \
            got.headers["content-disposition"]
        rows = list(csv.reader(io.StringIO(got.text)))
        assert rows[0][:6] == ["date", "entry", "account", "account_name", "debit", "credit"]
        assert sorted((r[2], r[4], r[5]) for r in rows[1:]) == [
            ("1310", "0", "20"), ("5000", "20", "0")]
        bean = c.get("/accounting/journal.beancount").text
        assert 'open Assets:Inventory:1310' in bean and f"^{po}" in bean
        assert c.get("/accounting/journal.xls").status_code == 404
        assert c.get("/accounting", params={"end": "2026-13-01"}).status_code == 400


def test_a_viewer_has_no_accounting_page(registry: Registry, db_url: str) -> None:
    books(registry)
    with serving_registry(registry, db_url, ("vera", PASSWORD, "viewer")) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        c.post("/sign-in", data={"username": "vera", "password": PASSWORD, "next": "/"})
        home = c.get("/").text
        assert 'href="/accounting"' not in home
        refused = c.get("/accounting")
        assert refused.status_code == 403
        assert c.get("/accounting/journal.csv").status_code == 403


def test_the_journal_pages_by_its_cursor_and_keeps_its_filters(registry: Registry, given: Given,
                                                               db_url: str) -> None:
    books(registry)
    for _ in range(99):  # 101 entries: a page of 100, then one
        given.stock({"M2": ("1", "2")}, reason="found")
    with serving_registry(registry, db_url, ("ada", PASSWORD, "admin")) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        c.post("/sign-in", data={"username": "ada", "password": PASSWORD, "next": "/"})
        first = c.get("/accounting", params={"start": "2026-11-01"}).text
        assert len(set(re.findall(r'data-entry="(\d+)"', first))) == 100
        found = re.search(r'href="([^"]+)" id="next-page"', first)
        assert found
        nxt = found.group(1).replace("&amp;", "&")
        assert "start=2026-11-01" in nxt and "cursor=" in nxt
        second = c.get(nxt).text
        assert len(set(re.findall(r'data-entry="(\d+)"', second))) == 1
        assert 'id="prev-page"' in second and 'id="next-page"' not in second
        assert c.get("/accounting", params={"cursor": "x"}).status_code == 400
