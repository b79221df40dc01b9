"""Bulk writes as jobs: the preview decides row by row, the job applies exactly that once,
and refuses as stale when what the preview read has changed in the meantime."""

from __future__ import annotations

import threading
import time
from decimal import Decimal as D
from typing import Any

from sqlalchemy import select

from shopfloor.app.wiring import worker_for
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, OperationLog
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand, snapshot

CSV = """SKU,Name,kind,purchase_price,reorder_point,default_supplier,on_hand:MAIN,on_hand:SHOP
N1,Oak board,material,12.50,20,Acme,40,
N2,Walnut board,,30,,,,5
M1,,,1,,,,
M2,Item M2 renamed,,,,,7,
BAD,Bad price,,-3,,,,
N3,Nobody supplies,,,,Nobody,,
N1,Twice,,,,,,
"""


def _job(reg: Registry, job_id: str) -> dict[str, Any]:
    return reg.invoke("get_job", {"job_id": job_id}, ADMIN)


def _confirm(reg: Registry, tool: str, **args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    preview = reg.invoke(tool, args, ADMIN)
    assert preview["preview"] is True and preview["apply"], preview["warnings"]
    return preview, reg.invoke(tool, preview["apply"]["arguments"], ADMIN)


def _log_rows(reg: Registry, operation_id: str) -> int:
    with reg.store.reading() as s:
        return len(s.scalars(select(OperationLog).where(
            OperationLog.operation_id == operation_id)).all())


def test_import_previews_each_row_then_a_job_applies_it_once(registry: Registry,
                                                             given: Given) -> None:
    given.company()
    blocked = registry.invoke("import_items", {"csv": CSV}, ADMIN)
    assert blocked["apply"] is None and blocked["warnings"][0]["blocking"]
    rows = {(r["line"], r["action"]): r for r in blocked["document"]["rows"]}
    assert [r["action"] for r in blocked["document"]["rows"]] == [
        "create", "create", "unchanged", "update", "reject", "reject", "reject"]
    assert rows[(2, "create")]["detail"] == "new material Oak board; on hand at MAIN 0 -> 40"
    assert "name Item M2 -> Item M2 renamed" in rows[(5, "update")]["detail"]
    assert "on hand at MAIN 0 -> 7" in rows[(5, "update")]["detail"]
    assert rows[(6, "reject")]["field"] == "purchase_price"
    assert rows[(7, "reject")]["detail"] == "no supplier 'Nobody'"
    assert rows[(8, "reject")]["detail"] == "N1 is also on line 2"

    before = snapshot(registry)
    preview, queued = _confirm(registry, "import_items", csv=CSV, skip_rejects=True)
    assert preview["document"]["created"] == 2 and preview["document"]["rejected"] == 3
    assert queued["queued"] is True and queued["status"] == "queued"
    assert snapshot(registry)["items"] == before["items"]  # queued, not yet applied
    again = registry.invoke("import_items", preview["apply"]["arguments"], ADMIN)
    assert again["replayed"] is True and again["job_id"] == queued["job_id"]

    assert worker_for(registry).run_one(queued["job_id"])
    job = _job(registry, queued["job_id"])
    assert job["status"] == "succeeded", (job["message"], job["result"])
    assert job["result"]["created"] == 2 and job["result"]["operation_id"] == job["job_id"]
    assert _log_rows(registry, job["job_id"]) == 1
    n1 = registry.invoke("get_item", {"sku": "N1"}, ADMIN)
    assert (n1["name"], n1["purchase_price"], n1["reorder_point"], n1["default_supplier"]) == \
        ("Oak board", "12.5", "20", "Acme")
    assert on_hand(registry, "N1") == 40 and on_hand(registry, "N2", "SHOP") == 5
    assert on_hand(registry, "M2") == 7
    stock = registry.invoke("get_stock", {"sku": "N1"}, ADMIN)["balances"][0]
    assert D(stock["average_cost"]) == D("12.5")  # opening stock valued at its price
    assert registry.invoke("get_item", {"sku": "M2"}, ADMIN)["name"] == "Item M2 renamed"
    assert not ledger_mismatches(registry)
    assert not worker_for(registry).run_one(queued["job_id"])  # nothing left to run


def test_import_job_refuses_when_the_preview_went_stale(registry: Registry, given: Given) -> None:
    given.company()
    csv = "sku,purchase_price,on_hand:MAIN\nM1,4,10\n"
    _, queued = _confirm(registry, "import_items", csv=csv)
    apply(registry, "modify_item", sku="M1", purchase_price="2")  # someone edits M1 meanwhile
    quiet = snapshot(registry)
    assert worker_for(registry).run_one(queued["job_id"])
    job = _job(registry, queued["job_id"])
    assert job["status"] == "failed" and job["message"].startswith("stale_preview: ")
    assert job["result"]["error"]["code"] == "stale_preview"
    after = snapshot(registry)
    # the job's own row and the `job.finished` event it wrote as it ended, nothing else
    assert after["events"] == quiet["events"] + 1
    assert {k: v for k, v in after.items() if not k.startswith(("jobs", "events"))} == \
        {k: v for k, v in quiet.items() if not k.startswith(("jobs", "events"))}
    assert registry.invoke("get_item", {"sku": "M1"}, ADMIN)["purchase_price"] == "2"
    assert _log_rows(registry, job["job_id"]) == 0


def test_batch_recipe_change_row_by_row(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "create_item", sku="P2", name="Second", kind="product")
    apply(registry, "create_item", sku="M3", name="Better M1", purchase_price="1")
    given.recipe("P1", {"M1": "2", "M2": "1"})
    given.recipe("P2", {"M1": "3", "M3": "1"})
    blocked = registry.invoke("batch_update_recipes",
                              {"component": "M1", "replace_with": "M3", "scale": "1.5"}, ADMIN)
    assert blocked["apply"] is None
    assert blocked["document"]["recipes"] == [
        {"product": "P1", "action": "update", "detail": "M1 x 2 -> M3 x 3"},
        {"product": "P2", "action": "reject", "detail": "already uses M3"}]
    _, queued = _confirm(registry, "batch_update_recipes", component="M1", replace_with="M3",
                         scale="1.5", skip_rejects=True)
    assert worker_for(registry).run_one(queued["job_id"])
    assert _job(registry, queued["job_id"])["status"] == "succeeded"
    recipe = registry.invoke("get_recipe", {"sku": "P1"}, ADMIN)["components"]
    assert [(c["sku"], c["quantity"]) for c in recipe] == [("M3", "3"), ("M2", "1")]
    recipe = registry.invoke("get_recipe", {"sku": "P2"}, ADMIN)["components"]
    assert [(c["sku"], c["quantity"]) for c in recipe] == [("M1", "3"), ("M3", "1")]

    _, queued = _confirm(registry, "batch_update_recipes", component="M3", scale="0.5",
                         products=["P2"])
    assert worker_for(registry).run_one(queued["job_id"])
    recipe = registry.invoke("get_recipe", {"sku": "P2"}, ADMIN)["components"]
    assert [(c["sku"], c["quantity"]) for c in recipe] == [("M1", "3"), ("M3", "0.5")]


def test_rebuild_preview_lists_corrections(registry: Registry, given: Given) -> None:
    given.company()
    given.stock({"M1": "5"}, reason="seed")
    with registry.store.writing() as s:  # damage the balance behind the ledger's back
        s.scalars(select(Balance)).unique().one().on_hand = D(3)
        s.commit()
    preview = registry.invoke("rebuild_balances", {}, ADMIN)
    assert preview["document"]["corrections"] == [
        {"sku": "M1", "location": "MAIN", "on_hand": ["3", "5"], "committed": ["0", "0"]}]
    assert {"entity": "balance", "key": "M1@MAIN", "field": "on_hand", "before": "3",
            "after": "5"} in preview["changes"]


def test_cancelling_a_running_import(registry: Registry, given: Given, db_url: str) -> None:
    """On PostgreSQL the cancel lands at the next checkpoint and nothing is written. On
    SQLite the import holds the one write lock, so a cancel_job (itself a write) that comes
    after the import began waits until it has committed, and is then refused. Either way
    the import is all or nothing."""
    given.company()
    rows = "\n".join(f"BULK-{i:05d},Bulk item {i},{i % 50 + 1}" for i in range(3000))
    _, queued = _confirm(registry, "import_items", csv=f"sku,name,on_hand:MAIN\n{rows}\n")
    quiet = snapshot(registry)
    worker = worker_for(registry, heartbeat=0.1)
    thread = threading.Thread(target=worker.run_one, args=(queued["job_id"],))
    thread.start()
    deadline = time.monotonic() + 60
    while _job(registry, queued["job_id"])["status"] == "queued" and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        cancel: dict[str, Any] | str = apply(registry, "cancel_job", job_id=queued["job_id"])
    except ShopfloorError as exc:
        cancel = exc.code
    thread.join(120)
    job = _job(registry, queued["job_id"])
    after = snapshot(registry)
    cancelled = isinstance(cancel, dict) and cancel["summary"].endswith(": cancelling")
    if db_url.startswith("postgresql"):
        assert cancelled, cancel
    if cancelled:
        assert job["status"] == "cancelled", job
        assert after["items"] == quiet["items"] and after["stock_movements"] == 0
        assert _log_rows(registry, job["job_id"]) == 0
    else:  # SQLite, the import took the lock first: all of it, then the cancel is refused
        assert cancel == "conflict" and job["status"] == "succeeded", (cancel, job)
        assert after["items"] == quiet["items"] + 3000
