"""The web admin's pages, rendered for a signed-in person over the demo company: the
median milliseconds of each page, against two baselines measured in the same run: the
registry read the page is built on, and the sign-in page (a template with no read: the
cost of a request through the app at all). Target: every page under 100 ms. The machine's
load average is printed with the figures: on a shared machine it moves them.

In process (Starlette's test client: the ASGI app as the server runs it, without a
socket), SQLite, after a warm-up; pages interleaved so a noisy machine's drift hits each
alike.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

from starlette.testclient import TestClient

from shopfloor.app import demo
from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.server import build_app

ROUNDS = int(os.environ.get("BENCH_PAGE_ROUNDS", "40"))
TARGET_MS = 100.0
ACTOR = Actor.of("bench", "admin")
PASSWORD = "bench password long enough"


def median_ms(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=f"sqlite:///{tmp}/bench.db", currency="EUR")
        reg = open_registry(settings)
        demo.load(reg, ACTOR)
        Accounts(reg.store).create("bench", PASSWORD, "admin")
        sku = reg.invoke("search_items", {"kind": "product", "limit": 1}, ACTOR)["items"][0]["sku"]
        po = reg.invoke("list_purchase_orders", {"limit": 1}, ACTOR)["orders"][0]["number"]
        pages: dict[str, tuple[str, str, dict[str, Any]]] = {
            "home": ("/", "list_low_stock", {}),
            "today": ("/today", "list_sales_orders", {"status": "open"}),
            "today/ship": ("/today/ship", "list_sales_orders", {"status": "open"}),
            "item": (f"/items/{sku}", "get_item", {"sku": sku}),
            "purchase order": (f"/purchase-orders/{po}", "get_purchase_order", {"number": po}),
            "edit form": (f"/tools/modify_item?sku={sku}", "get_item", {"sku": sku}),
            "mrp": ("/mrp", "list_jobs", {"limit": 50}),
        }
        failed = 0
        with TestClient(build_app(reg, settings, run_worker=False),
                        base_url="http://127.0.0.1:8765") as client:
            client.headers["Origin"] = "http://127.0.0.1:8765"
            client.headers["Accept-Language"] = "en-GB,en;q=0.8"
            signed = client.post("/sign-in", data={"username": "bench", "password": PASSWORD,
                                                   "next": "/"}, follow_redirects=False)
            assert signed.status_code == 303, signed.text
            for path, _, _ in pages.values():  # warm-up: templates compiled, caches filled
                for _ in range(3):
                    assert client.get(path).status_code == 200, path
            bare = median_ms(lambda: client.get("/sign-in"), ROUNDS)
            print(f"load average {os.getloadavg()[0]:.1f}; the sign-in page (no read) "
                  f"{bare:.1f} ms", flush=True)
            for name, (path, tool, args) in pages.items():
                page = median_ms(lambda p=path: client.get(p), ROUNDS)
                read = median_ms(lambda t=tool, a=args: reg.invoke(t, a, ACTOR), ROUNDS)
                ok = page < TARGET_MS
                failed += not ok
                print(f"{name:16s} page {page:7.1f} ms   its read ({tool}) {read:6.1f} ms   "
                      f"ratio {page / read:5.1f}, to sign-in {page / bare:4.1f}   "
                      f"(target page < {TARGET_MS:.0f} ms: "
                      f"{'ok' if ok else 'MISSED'})", flush=True)
        reg.store.dispose()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
