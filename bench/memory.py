"""RSS of `shopfloor serve` after the first 1k mixed requests and after 50k (target: grows
by less than 50 MB). Reads, previews and applies over HTTP, from a real client."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1]))

from tests.servers import free_port, serving_process

TOTAL = int(os.environ.get("BENCH_REQUESTS", "50000"))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SHOPFLOOR_DATABASE_URL": f"sqlite:///{tmp}/mem.db"}
        cli = [sys.executable, "-m", "shopfloor.surfaces.cli"]
        subprocess.run([*cli, "demo"], env=env, check=True, capture_output=True)
        token = subprocess.run([*cli, "token", "create", "--role", "admin"], env=env,
                               check=True, capture_output=True, text=True).stdout.strip()
        port = free_port()
        base = f"http://127.0.0.1:{port}/api/v1/tools"
        headers = {"Authorization": f"Bearer {token}"}
        with serving_process([*cli, "serve", "--port", str(port)], env, port) as server:
            client = httpx.Client(headers=headers, timeout=30)
            requests = [
                ("get_stock", {"sku": "OAK-BOARD-25"}), ("search_items", {"query": "oak"}),
                ("get_item", {"sku": "CHAIR-DINING"}), ("list_low_stock", {}),
                ("create_stock_adjustment", {"location": "MAIN", "reason": "count",
                 "lines": [{"sku": "FELT-PAD", "quantity_delta": "1"}]}),
                ("create_stock_adjustment", {"location": "MAIN", "reason": "count",
                 "preview": False, "lines": [{"sku": "FELT-PAD", "quantity_delta": "1"}]}),
                ("get_item", {"sku": "NO-SUCH"}),
            ]

            def one(i: int) -> None:
                name, args = requests[i % len(requests)]
                r = client.post(f"{base}/{name}", json=args)
                assert r.status_code < 500, r.text

            with ThreadPoolExecutor(4) as pool:
                list(pool.map(one, range(1000)))
                first = rss_mb(server.pid)
                start = time.perf_counter()
                list(pool.map(one, range(1000, TOTAL)))
                elapsed = time.perf_counter() - start
            last = rss_mb(server.pid)
    print(f"memory  serve RSS after 1k requests {first:.1f} MB, after {TOTAL // 1000}k "
          f"{last:.1f} MB: +{last - first:.1f} MB (target < 50)  "
          f"[{(TOTAL - 1000) / elapsed:.0f} req/s, 4 clients]")


if __name__ == "__main__":
    main()
