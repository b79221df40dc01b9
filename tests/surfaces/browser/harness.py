"""A test MCP Apps host in headless Chromium: the official AppBridge, a real server.

The host page is served by Playwright's router from a made-up origin; every other
request the browser makes is recorded and refused, and a canary load proves the
recorder sees requests made from inside the card's sandboxed iframe.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.async_api import Browser, Frame, Page, Playwright, Route, async_playwright

JS = Path(__file__).parents[2] / "js"
ARTIFACTS = Path(__file__).parents[3] / "artifacts" / "e2e"
HOST_URL = "http://host.test/host.html"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-site-isolation-trials",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


@cache
def host_page() -> str:
    esbuild = JS / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists() or not shutil.which("node"):
        pytest.fail("test JS peers missing: run `make e2e-deps`", pytrace=False)
    bundle = subprocess.run(
        [str(esbuild), str(JS / "host-entry.js"), "--bundle", "--format=iife", "--minify"],
        capture_output=True, text=True, check=True, cwd=JS).stdout
    return (JS / "host.html").read_text().replace("/*HOST_BUNDLE*/", bundle)


@dataclass
class Recorder:
    external: list[str] = field(default_factory=list)
    console_failures: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def outside(self) -> list[str]:
        seen = self.external + self.console_failures
        return [u for u in seen if "canary.invalid" not in u]


T = TypeVar("T")


class Shared:
    """This process's one event loop, and the Playwright driver and Chromium that every
    browser test run in it shares: starting both took 1-2 s a test (5-10 s on a loaded
    machine). Each test still gets fresh browser contexts (cookies, storage, cache)."""

    runner: asyncio.Runner | None = None
    driver: Playwright | None = None
    chromium: Browser | None = None


def run(main: Coroutine[Any, Any, T]) -> T:
    """`main` run to its end on this process's one event loop (where the shared Chromium
    lives), as `asyncio.run` would on a new one."""
    if Shared.runner is None:
        Shared.runner = asyncio.Runner()
    return Shared.runner.run(main)


@asynccontextmanager
async def browser() -> AsyncIterator[Browser]:
    """The shared Chromium, launched on first use; every context opened in the block is
    closed at its end, so the next test starts with none."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is missing: run `make browsers`", pytrace=False)
    if Shared.runner is None or asyncio.get_running_loop() is not Shared.runner.get_loop():
        pytest.fail("a browser test runs its coroutine with harness.run, not asyncio.run",
                    pytrace=False)
    if Shared.chromium is None or not Shared.chromium.is_connected():
        if Shared.driver is None:
            Shared.driver = await async_playwright().start()
        Shared.chromium = await Shared.driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=ARGS)
    b = Shared.chromium
    try:
        yield b
    finally:
        for context in b.contexts:
            await context.close()


def close() -> None:
    """Chromium, the driver and the loop closed (at the end of the session)."""
    if Shared.runner is None:
        return

    async def stop() -> None:
        if Shared.chromium is not None:
            await Shared.chromium.close()
        if Shared.driver is not None:
            await Shared.driver.stop()

    try:
        Shared.runner.run(stop())
    finally:
        Shared.runner.close()
        Shared.runner = Shared.driver = Shared.chromium = None


async def open_host(b: Browser, rec: Recorder,
                    call_tool: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> Page:
    context = await b.new_context(viewport={"width": 760, "height": 600})
    html = host_page()

    async def route(r: Route) -> None:
        if r.request.url == HOST_URL:
            await r.fulfill(body=html, content_type="text/html")
        else:
            rec.external.append(r.request.url)
            await r.abort()

    await context.route("**/*", route)
    page = await context.new_page()
    page.on("console", lambda m: rec.console_failures.append(m.text)
            if "Failed to load resource" in m.text and "http" in m.text else None)

    dismissals: set[asyncio.Task[None]] = set()

    def on_dialog(d: Any) -> None:
        rec.dialogs.append(d.message)
        task = asyncio.ensure_future(d.dismiss())
        dismissals.add(task)
        task.add_done_callback(dismissals.discard)

    page.on("dialog", on_dialog)
    await page.expose_function("shopfloorCallTool", call_tool)
    await page.goto(HOST_URL)
    return page


async def prove_recorder(page: Page, rec: Recorder) -> None:
    """Fail unless a load from inside a sandboxed srcdoc iframe is seen by the recorder."""
    await page.evaluate("""() => {
      const f = document.createElement('iframe');
      f.setAttribute('sandbox', 'allow-scripts');
      f.srcdoc = '<img src="https://canary.invalid/probe.png">';
      document.body.appendChild(f);
    }""")
    for _ in range(100):
        if any("canary.invalid" in u for u in rec.external):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the request recorder did not see the canary load: the "
                         "zero-external-requests check would be blind")


async def mount(page: Page, html: str, tool_input: dict[str, Any], result: dict[str, Any],
                theme: str = "light") -> None:
    await page.evaluate("([h, i, r, t]) => window.mountCard(h, i, r, t)",
                        [html, tool_input, result, theme])


async def card_state(page: Page, state: str) -> None:
    frame = page.frame_locator("#card")
    await frame.locator(f"body[data-state='{state}']").wait_for(timeout=15000)


async def card_window(page: Page) -> Frame:
    """The card's own frame, to evaluate in it (its globals, its keyboard events)."""
    frame = await (await page.locator("#card").element_handle()).content_frame()
    assert frame is not None
    return frame


class Gate:
    """The host's tools/call, held until `release()`: the card stays Pending meanwhile."""

    def __init__(self, call_tool: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]):
        self.call_tool, self.opened = call_tool, asyncio.Event()

    def release(self) -> None:
        self.opened.set()

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        await self.opened.wait()
        return await self.call_tool(params)


async def host_log(page: Page) -> dict[str, Any]:
    log: dict[str, Any] = await page.evaluate("() => window.hostLog")
    return log


async def settled(page: Page) -> dict[str, Any]:
    """The host's log once every message the card posted so far has reached the host: a
    barrier posted from the card after them, waited for (by condition, never by a timer
    the page's clock may hold). What a test asserts did not happen, after it moved the
    page's clock past when it would have, had it been going to."""
    card = await card_window(page)
    n = await card.evaluate("""() => {
      window.testBarrier = (window.testBarrier || 0) + 1;
      parent.postMessage({ jsonrpc: "2.0", method: "test/barrier",
                           params: { n: window.testBarrier } }, "*");
      return window.testBarrier; }""")
    for _ in range(200):  # a bound on a broken page only (10 s), not a timing
        log = await host_log(page)
        if n in log["barriers"]:
            return log
        await asyncio.sleep(0.05)
    raise AssertionError(f"the host never saw the card's barrier {n}")


async def still(page: Page) -> dict[str, Any]:
    """The page's clock paused, and the host's log once no tool call the card made is
    still waiting for its answer: from here only the test moves time, so what the card
    does next happens inside the `clock.run_for` the test calls, where it can be seen."""
    now = await page.evaluate("() => Date.now()")
    await page.clock.pause_at(now + 1)
    for _ in range(200):  # a bound on a broken host only (10 s), not a timing
        log = await settled(page)
        if log["inFlight"] == 0:
            return log
        await asyncio.sleep(0.05)
    raise AssertionError("a tool call the card made never got its answer")


def writes(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The card's tool calls but its name look-ups (get_item, a read it makes to show an
    item's name next to its SKU)."""
    return [c for c in log["toolCalls"] if c["name"] != "get_item"]


async def told(page: Page) -> list[str]:
    """The texts the card sent the model (ui/update-model-context), in order."""
    return [m["content"][0]["text"] for m in (await host_log(page))["modelContext"]]


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.locator("#card").screenshot(path=str(ARTIFACTS / f"{name}.png"))


def wire(result: Any) -> dict[str, Any]:
    """A tool result as it travels in JSON-RPC (what the AppBridge hands the card)."""
    out: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return out


def forward(mcp: Any) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    """The host's tools/call for the card: straight to the real server over MCP."""
    async def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        return wire(await mcp.call_tool(params["name"], params.get("arguments")))

    return call_tool


async def card_html(mcp: Any, uri: str) -> str:
    html: str = (await mcp.read_resource(uri)).contents[0].text
    return html


@asynccontextmanager
async def card_host(url: str, token: str, uri: str) -> AsyncIterator[
        tuple[Any, Browser, str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]]]:
    """What a card's test starts from: an MCP client signed in to the server at `url`
    with `token`, a browser, the card at `uri` (its HTML), and the host's tools/call
    going straight to that client."""
    from tests.surfaces.mcp.clients import http_session

    async with http_session(url, token) as mcp, browser() as b:
        yield mcp, b, await card_html(mcp, uri), forward(mcp)
