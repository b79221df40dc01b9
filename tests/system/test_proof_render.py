"""What people read: nested results shown in full, stored strings shown inert.

The text and Markdown views (CLI, MCP text content) render a finished job's result
(an MRP plan: manufacturing orders, purchase orders grouped by supplier, item rows)
instead of dropping it, escape control characters and bidi overrides wherever they sit,
and leave `--fmt json` byte for byte the registry's payload.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

from shopfloor.surfaces.render import render

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

JOB: dict[str, Any] = {
    "job_id": "j-1", "kind": "mrp", "status": "succeeded", "progress": "1",
    "message": "MRP: 1 manufacturing order and 2 purchase lines from 1 supplier suggested",
    "result": {
        "location": None, "planned_on": "2026-12-01",
        "manufacturing_orders": [{"sku": "TABLE", "name": "Table", "quantity": "4",
                                  "start_date": "2026-12-02", "late": False,
                                  "reasons": ["SO-00001 (due 2026-12-05)", "reorder point 2"],
                                  "due_date": "2026-12-05"}],
        "purchase_orders": [{"supplier": "Nordic \x1b[2JTimber", "warning": None, "lines": [
            {"sku": "OAK", "name": "Oak board", "quantity": "12", "need_date": "2026-12-02",
             "unit_price": "9.5", "reasons": ["planned MO for TABLE (4)"]},
            {"sku": "SCREW", "name": "Screw \u202eevil", "quantity": "400",
             "need_date": "2026-12-02", "unit_price": "0.01", "reasons": []}]}],
        "items": [{"sku": "TABLE", "level": 0, "on_hand": "0", "planned": "4"},
                  {"sku": "OAK", "level": 1, "on_hand": "3", "planned": "12"}],
        "summary": "MRP: 1 manufacturing order and 2 purchase lines from 1 supplier suggested",
    },
}


def test_a_finished_plan_is_rendered_in_text_and_markdown() -> None:
    text = render(JOB, "text")
    for expected in ("status: succeeded", "planned_on: 2026-12-01",
                     "result / manufacturing_orders (1)", "result / purchase_orders (1)",
                     "result / items (2)", "SO-00001 (due 2026-12-05), reorder point 2",
                     "* supplier: Nordic \\x1b[2JTimber", "lines (2):", "Oak board", "SCREW",
                     "Screw \\u202eevil"):
        assert expected in text, (expected, text)
    rows = text.splitlines()
    header = next(r for r in rows if r.startswith("sku") and "need_date" in r)
    assert {"quantity", "unit_price", "reasons"} <= set(header.split())
    assert not UNSAFE.search(text)
    md = render(JOB, "md")
    assert "### result" in md and "#### result / purchase_orders (1)" in md
    assert "| OAK | Oak board | 12 |" in md and not UNSAFE.search(md)
    assert render(JOB, "json") == json.dumps(JOB, indent=2, ensure_ascii=False)


def test_control_characters_are_escaped_everywhere_in_views() -> None:
    payload = {"na\x1bme": "a\x07b", "rows": [{"k": "\x9b31m", "n": "x\ty\nz"}],
               "nested": {"deep": ["\u2066iso\u2069", "\x00"]}}
    for fmt in ("text", "md"):
        shown = render(payload, fmt)
        assert not UNSAFE.search(shown), (fmt, shown)
        assert "\\x07" in shown and "\\x9b31m" in shown and "\\u2066iso\\u2069" in shown
    assert "<b>" not in render({"name": "<b>bold</b>"}, "md")
    assert "<b>" in render({"name": "<b>bold</b>"}, "text")  # a terminal does not run markup


def test_cli_run_mrp_wait_prints_the_plan(tmp_path: Any) -> None:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": f"sqlite:///{tmp_path}/mrp.db"}
    cli = [sys.executable, "-m", "shopfloor.surfaces.cli"]
    subprocess.run([*cli, "demo"], env=env, check=True, capture_output=True, timeout=120)
    out = subprocess.run([*cli, "call", "run_mrp", "--wait"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    job = subprocess.run([*cli, "--fmt", "json", "call", "list_jobs"], env=env,
                         capture_output=True, text=True, timeout=60)
    plan = next(j for j in json.loads(job.stdout)["jobs"] if j["kind"] == "mrp")
    assert plan["status"] == "succeeded"
    assert "result / manufacturing_orders" in out.stdout
    assert "result / purchase_orders" in out.stdout and "* supplier: " in out.stdout
    full = subprocess.run([*cli, "--fmt", "json", "call", "get_job", "--arg",
                           f"job_id={plan['job_id']}"], env=env, capture_output=True,
                          text=True, timeout=60)
    result = json.loads(full.stdout)["result"]
    for mo in result["manufacturing_orders"]:
        assert mo["sku"] in out.stdout
    for po in result["purchase_orders"]:
        assert f"* supplier: {po['supplier']}" in out.stdout
        assert all(line["sku"] in out.stdout for line in po["lines"])
