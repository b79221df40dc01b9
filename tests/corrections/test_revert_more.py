"""revert_operation over the rest of the catalogue, by hand on both databases: an applied
MRP plan, an item import, an adjustment's update, a lot's hold, recipe changes, and the
one write that cannot be reverted (a balance rebuild) refused with what to do instead."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from sqlalchemy import select

from shopfloor.registry.registry import Registry
from shopfloor.store.tables import StockAdjustment
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot
from tests.lots.test_lots import lots_of, receive, refused, setup
from tests.planning.test_mrp import TODAY, base, day, run_job


def _revert(reg: Registry, done: dict[str, Any]) -> dict[str, Any]:
    return apply(reg, "revert_operation", operation_id=done["operation_id"])


def _log(reg: Registry, tool: str) -> dict[str, Any]:
    entries = reg.invoke("get_operation_log", {"tool": tool}, ADMIN)["entries"]
    return dict(entries[0])


def test_mrp_plan_reverted_and_refused_once_an_order_moved(registry: Registry,
                                                           given: Given) -> None:
    base(registry)
    apply(registry, "create_item", sku="B", name="Bolt", purchase_price="2",
          default_supplier="Acme")
    apply(registry, "create_item", sku="K", name="Kit", kind="product")
    given.recipe("K", {"B": "3"})
    given.so({"K": ("2", "1")}, due_date=day(20))
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    applied = apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    (mo,), (po,) = applied["manufacturing_orders"], applied["purchase_orders"]
    assert stock(registry, "B")[1] == D(6)  # the planned order commits 2 x 3 bolts

    preview = registry.invoke("revert_operation", {"operation_id": applied["operation_id"]},
                              ADMIN)
    changes = {(c["entity"], c["key"], c["field"]): c["after"] for c in preview["changes"]}
    assert changes[("manufacturing_order", mo, "status")] == "cancelled"
    assert changes[("purchase_order", po, "status")] == "cancelled"
    assert changes[("plan", applied["operation_id"], "pegs")] == "0"
    apply(registry, "revert_operation", operation_id=applied["operation_id"])
    assert stock(registry, "B")[1] == D(0)
    got = registry.invoke("get_manufacturing_order", {"number": mo}, ADMIN)
    assert got["status"] == "cancelled"

    # a second plan, one of whose orders is then received: refused, naming it
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    again = apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    (po2,) = again["purchase_orders"]
    apply(registry, "receive_purchase_order", number=po2)
    before = snapshot(registry)
    err = refused(registry, "revert_operation", operation_id=again["operation_id"])
    assert err.code == "conflict" and f"purchase order {po2} has been received" in err.message
    assert snapshot(registry) == before


def test_import_reverted_fields_stock_and_new_items(registry: Registry, given: Given) -> None:
    given.company()
    csv = ("sku,name,purchase_price,reorder_point,on_hand:MAIN,unit_cost\n"
           "M1,,3,5,4,2.5\nNEW1,New thing,7,,2,7\n")
    job = run_job(registry, "import_items", csv=csv)
    assert stock(registry, "M1") == (D(4), D(0), D("2.5"))
    entry = _log(registry, "import_items")
    _revert(registry, entry)
    item = registry.invoke("get_item", {"sku": "M1"}, ADMIN)
    assert (item["purchase_price"], item["reorder_point"]) == ("1", "0")
    assert stock(registry, "M1") == (D(0), D(0), D(0))
    err = refused(registry, "modify_item", sku="NEW1", name="x")
    assert err.code == "not_found"  # archived
    assert not ledger_mismatches(registry)
    assert job["status"] == "succeeded"


def test_import_revert_refused_when_a_field_changed_since(registry: Registry, given: Given) -> None:
    given.company()
    run_job(registry, "import_items", csv="sku,purchase_price\nM1,3\n")
    apply(registry, "modify_item", sku="M1", purchase_price="4")
    err = refused(registry, "revert_operation",
                  operation_id=_log(registry, "import_items")["operation_id"])
    assert err.code == "conflict" and "purchase_price is 4 now, not 3" in err.message
    _revert(registry, _log(registry, "modify_item"))
    _revert(registry, _log(registry, "import_items"))
    assert registry.invoke("get_item", {"sku": "M1"}, ADMIN)["purchase_price"] == "1"


def test_adjustment_update_reverted_to_its_previous_lines(registry: Registry, given: Given) -> None:
    given.company()
    adj = given.stock({"M1": ("5", "2")}, reason="found")
    upd = apply(registry, "update_stock_adjustment", number=adj["number"], reason="typo",
                lines=[{"sku": "M1", "quantity_delta": "8", "unit_cost": "2"},
                       {"sku": "M2", "quantity_delta": "1", "unit_cost": "3"}])
    assert stock(registry, "M1") == (D(8), D(0), D(2))
    _revert(registry, upd)
    assert stock(registry, "M1") == (D(5), D(0), D(2))
    assert stock(registry, "M2") == (D(0), D(0), D(0))
    with registry.store.reading() as s:
        got = s.scalars(select(StockAdjustment).where(
            StockAdjustment.number == adj["number"])).one()
        assert got.reason == "found"
        assert [(ln.item.sku, ln.quantity_delta, ln.unit_cost) for ln in got.lines] == [
            ("M1", D(5), D(2))]
    assert not ledger_mismatches(registry)


def test_hold_and_recipe_changes_revert_and_rebuild_does_not(registry: Registry,
                                                             given: Given) -> None:
    setup(registry)
    receive(registry, "FLOUR", [{"lot": "L1", "quantity": "5"}])
    held = apply(registry, "hold_lot", sku="FLOUR", lot="L1", reason="mould")
    lots = registry.invoke("list_lots", {"sku": "FLOUR"}, ADMIN)["lots"]
    assert (lots[0]["held"], lots[0]["hold_reason"]) == (True, "mould")
    _revert(registry, held)
    assert lots_of(registry, "FLOUR") == {"L1": D(5)}
    lots = registry.invoke("list_lots", {"sku": "FLOUR"}, ADMIN)["lots"]
    assert (lots[0]["held"], lots[0]["hold_reason"]) == (False, None)

    apply(registry, "create_item", sku="SALT", name="Salt")
    apply(registry, "create_item", sku="BREAD", name="Bread", kind="product")
    given.recipe("BREAD", {"FLOUR": "2"})
    batch = run_job(registry, "batch_update_recipes", component="FLOUR", replace_with="SALT",
                    scale="1.5")
    assert batch["status"] == "succeeded"
    _revert(registry, _log(registry, "batch_update_recipes"))
    bread = registry.invoke("get_item", {"sku": "BREAD"}, ADMIN)
    assert [(c["sku"], c["quantity"]) for c in bread["recipe"]] == [("FLOUR", "2")]

    run_job(registry, "rebuild_balances")
    err = refused(registry, "revert_operation",
                  operation_id=_log(registry, "rebuild_balances")["operation_id"])
    assert err.code == "conflict" and "create_stock_adjustment" in err.message
