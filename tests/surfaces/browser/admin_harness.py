"""Driving the web admin in headless Chromium: a person's browser against a real server.

Every request outside the server is recorded and refused; the recorder is proved by a
canary load in the same browser context; a Content-Security-Policy refusal on our pages
counts as a failure too (a page that tried to load or run something it must not).
axe-core (pinned in tests/js) checks each page for serious or critical violations.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, ElementHandle, Page, Route

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.admin.session import COOKIE
from shopfloor.surfaces.auth import Authenticator
from tests.given import Given
from tests.helpers import ADMIN
from tests.surfaces.browser import harness

AXE = harness.JS / "node_modules" / "axe-core" / "axe.min.js"


@cache
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail("axe-core missing: run `make e2e-deps`", pytrace=False)
    return AXE.read_text()


@dataclass
class Watch:
    base: str
    external: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def outside(self) -> list[str]:
        return [u for u in self.external if "canary.invalid" not in u]


@asynccontextmanager
async def admin_context(browser: Browser, base: str, *, width: int = 1280,
                        height: int = 900) -> AsyncIterator[tuple[BrowserContext, Watch]]:
    watch = Watch(base)
    context = await browser.new_context(viewport={"width": width, "height": height},
                                        locale="en-GB")

    async def route(r: Route) -> None:
        if r.request.url.startswith(base):
            await r.continue_()
        else:
            watch.external.append(r.request.url)
            await r.abort()

    await context.route("**/*", route)

    def on_page(page: Page) -> None:
        page.on("dialog", lambda d: watch.dialogs.append(d.message))
        page.on("console", lambda m: watch.refusals.append(f"{page.url}: {m.text}")
                if page.url.startswith(base) and ("Content Security Policy" in m.text
                                                  or "Failed to load resource: net::" in m.text)
                else None)
        page.on("pageerror", lambda e: watch.errors.append(str(e)))

    context.on("page", on_page)
    try:
        yield context, watch
    finally:
        await context.close()


def office(sqlite_url: str, supplier: str) -> tuple[Registry, Settings, Given]:
    """The office the admin's walkthroughs start from, on its own SQLite file, in euros:
    the warehouse MAIN ("Main warehouse"), `supplier` and the customer Café Linde."""
    settings = Settings(database_url=sqlite_url, currency="EUR")
    reg = open_registry(settings)
    given = Given(reg)
    given.location(name="Main warehouse")
    given.supplier(supplier)
    given.customer("Café Linde")
    return reg, settings, given


async def prove_recorder(context: BrowserContext, watch: Watch) -> None:
    """A load from a page in this context must be seen, or the check would be blind."""
    page = await context.new_page()
    await page.set_content('<img src="https://canary.invalid/probe.png" alt="">')
    for _ in range(100):
        if any("canary.invalid" in u for u in watch.external):
            await page.close()
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the request recorder did not see the canary load")


async def signed_in(context: BrowserContext, base: str, reg: Registry, user: str,
                    role: str = "admin") -> None:
    """The session cookie the sign-in form would set, minted directly: the token the
    server's own Authenticator verifies, without the form's deliberately slow argon2
    check (the sign-in form is driven in test_web_admin and test_admin_guards)."""
    token = Authenticator(reg, Settings(database_url=reg.store.url)).mint(user, [role], 3600)
    await context.add_cookies([{"name": COOKIE, "value": token, "url": base,
                                "httpOnly": True, "sameSite": "Strict"}])


async def sign_in(page: Page, base: str, user: str, password: str) -> None:
    await page.goto(base + "/")
    await page.wait_for_selector("#sign-in-form")
    await page.fill("#username", user)
    await page.fill("#password", password)
    await page.click("#sign-in-form button[type=submit]")
    await page.wait_for_selector("header.top")


async def job_succeeded(page: Page, reg: Registry) -> str:
    """After Run MRP: its job's page once the job has succeeded; the job's id. The page
    polls every 700 ms: once the job has ended (read through the registry) the page's
    clock, installed before the page was opened, is moved on to its next poll rather than
    waited out."""
    await page.wait_for_url("**/jobs/*")
    job_id = page.url.rstrip("/").rsplit("/", 1)[1]
    for _ in range(1200):  # a bound on a broken worker only (60 s), not a timing
        status = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)["status"]
        if status not in ("queued", "running"):
            break
        await asyncio.sleep(0.05)
    await page.clock.run_for(700)
    await page.wait_for_selector("#job[data-status='succeeded']", timeout=30000)
    return job_id


async def axe(page: Page, name: str) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations on the page as it is now."""
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.evaluate(axe_source())
    result: dict[str, Any] = await page.evaluate(
        "async () => await axe.run(document, {resultTypes: ['violations']})")
    bad = [{"page": name, "id": v["id"], "impact": v["impact"], "help": v["help"],
            "nodes": [n["target"] for n in v["nodes"]][:3]}
           for v in result["violations"] if v["impact"] in ("serious", "critical")]
    return bad


async def shot(page: Page, name: str, *, full: bool = True) -> None:
    harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(harness.ARTIFACTS / f"admin-{name}.png"), full_page=full)


async def gone(page: Page, element: ElementHandle) -> None:
    """Waits until the element is detached or hidden.

    Playwright's wait_for_element_state("hidden") raises when htmx detaches the
    element between two of its polls, which it may do at any moment; a predicate in
    the page sees both outcomes as the one they are."""
    await page.wait_for_function(
        "(el) => !el.isConnected || !el.checkVisibility()", arg=element)


async def preview(page: Page) -> str:
    """Press Preview; returns the preview's text as the renderer drew it."""
    before = await page.query_selector("#outcome")
    await page.click("#submit")
    if before is not None:
        await gone(page, before)  # swapped for the answer
    await page.wait_for_selector("#preview #summary-text, #outcome-error")
    if await page.locator("#outcome-error").count():
        raise AssertionError(await page.inner_text("#outcome-error"))
    return await page.inner_text("#preview")


async def confirm(page: Page) -> str:
    button = await page.wait_for_selector("#confirm")
    assert button is not None
    await button.click()
    await gone(page, button)  # the answer replaced the preview
    await page.wait_for_selector("#applied, #outcome-error, #stale-notice")
    if not await page.locator("#applied").count():
        raise AssertionError(await page.inner_text("#outcome"))
    return await page.inner_text("#applied")


async def preview_and_confirm(page: Page) -> tuple[str, str]:
    shown = await preview(page)
    return shown, await confirm(page)


async def new_order(page: Page, url: str, orders: str, fields: dict[str, str],
                    lines: list[tuple[str, str]]) -> None:
    """A new order's form opened from its list (`orders`: "purchase-orders" ...) and
    filled as a person would: its fields by name, then each line's item and quantity,
    a line added for each after the first."""
    await page.goto(f"{url}/{orders}")
    await page.click("#new-order")
    for name, value in fields.items():
        await page.fill(f"#f-{name}", value)
    for i, (sku, quantity) in enumerate(lines):
        if i:
            await page.click("[data-add-line='lines']")
        await page.fill(f"input[name='lines.{i}.sku']", sku)
        await page.fill(f"input[name='lines.{i}.quantity']", quantity)


async def no_overflow(page: Page) -> None:
    """Nothing wider than the window (a 390 px phone scrolls down, never sideways)."""
    wide = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wide <= 1, f"{page.url} is {wide}px wider than the window"


SPLIT_WORDS = """(selector) => {
  const out = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s-]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
}"""


async def split_words(page: Page, selector: str = "main th, main td") -> list[str]:
    """Words a table (or the boxes `selector` names) broke across lines mid-word
    ("Availabl|e", "dem|o"); a break after a hyphen is a normal line break (OAK-|PLANK)."""
    words: list[str] = await page.evaluate(SPLIT_WORDS, selector)
    return words


async def fits_a_phone(page: Page, url: str, path: str, wide: list[str],
                       violations: list[dict[str, Any]]) -> None:
    """`path` opened in the window as it is (a phone's): nothing wider than it and no word
    of a table broken across lines (a failure is kept in `wide`, naming the page, so that
    every page is checked), and what axe finds on it added to `violations`."""
    await page.goto(url + path)
    try:
        await no_overflow(page)
        split = await split_words(page)
        assert split == [], f"{path}: words broken across lines: {split}"
    except AssertionError as exc:
        wide.append(str(exc))
    violations.extend(await axe(page, "phone " + path))


async def tables_fit(page: Page) -> None:
    """On a desktop window every table shows all its columns at once, each word whole."""
    hidden = await page.evaluate("""() => [...document.querySelectorAll("main .table-wrap")]
        .filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.innerText.slice(0, 40))""")
    assert hidden == [], f"{page.url}: tables scroll sideways: {hidden}"
    split = await split_words(page)
    assert split == [], f"{page.url}: words broken across lines: {split}"
