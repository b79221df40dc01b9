"""A purchase line in the supplier's unit, said in that unit wherever a person reads it
back: a receipt's and a return's preview, and a return's quantity, which may be given in
the line's unit (boxes) or the item's (pieces, the default). Both databases."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest
from sqlalchemy import select

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import OperationLog
from shopfloor.surfaces.render import render
from tests.buying.test_buying import alpha_and_beta, refused, stock_of, world
from tests.helpers import ADMIN, apply


def _changes(result: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {c["field"]: (c["before"], c["after"]) for c in result["changes"]
            if c["entity"] == "purchase_order"}


def _boxes(reg: Registry) -> str:
    world(reg)
    alpha_and_beta(reg)
    po = apply(reg, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESA", "unit": "box", "quantity": "11"}])
    number: str = po["number"]
    return number


def test_a_receipt_in_boxes_reads_in_boxes_with_the_pieces_beside(registry: Registry) -> None:
    number = _boxes(registry)
    preview = registry.invoke("receive_purchase_order", {
        "number": number, "lines": [{"sku": "RESA", "quantity": "4"}]}, ADMIN)
    assert _changes(preview)["line RESA received"] == ("0", "4 box (400 pcs)")
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "RESA", "quantity": "4"}])
    # too much is said in boxes too, never "receiving 800 but only 700"
    err = refused(registry, "receive_purchase_order",
                  {"number": number, "lines": [{"sku": "RESA", "quantity": "8"}]})
    assert "8 box (800 pcs)" in err.message and "7 box (700 pcs)" in err.message
    done = apply(registry, "receive_purchase_order", number=number)
    assert _changes(done)["line RESA received"] == ("4 box (400 pcs)", "11 box (1100 pcs)")


def test_a_return_on_a_line_in_boxes_takes_boxes_or_pieces(registry: Registry) -> None:
    number = _boxes(registry)
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "RESA", "quantity": "4"}])
    assert stock_of(registry, "RESA") == (D(400), D("0.035"))
    # one box back, said in boxes: 100 pcs leave
    preview = registry.invoke("create_supplier_return", {
        "number": number, "reason": "crushed", "lines": [
            {"sku": "RESA", "quantity": "1", "unit": "box"}]}, ADMIN)
    assert _changes(preview)["line RESA returned"] == ("0", "1 box (100 pcs)")
    assert [(ln["quantity"], ln["unit"]) for ln in preview["document"]["lines"]] == \
        [("100", "pcs")]
    apply(registry, "create_supplier_return", number=number, reason="crushed",
          lines=[{"sku": "RESA", "quantity": "1", "unit": "box"}])
    assert stock_of(registry, "RESA")[0] == D(300)
    # no unit (or the item's): pieces, as before
    apply(registry, "create_supplier_return", number=number, reason="bent",
          lines=[{"sku": "RESA", "quantity": "50"}])
    apply(registry, "create_supplier_return", number=number, reason="bent",
          lines=[{"sku": "RESA", "quantity": "50", "unit": "pcs"}])
    assert stock_of(registry, "RESA")[0] == D(200)
    got = registry.invoke("get_purchase_order", {"number": number}, ADMIN)["lines"][0]
    assert (got["done_quantity"], got["returned_quantity"], got["unit"]) == ("4", "2", "box")
    # more than is left, said in boxes; a unit the line is not in, named
    err = refused(registry, "create_supplier_return", {
        "number": number, "reason": "x", "lines": [{"sku": "RESA", "quantity": "3",
                                                    "unit": "box"}]})
    assert err.field == "lines[0].quantity" and "2 box (200 pcs)" in err.message
    err = refused(registry, "create_supplier_return", {
        "number": number, "reason": "x", "lines": [{"sku": "RESA", "quantity": "1",
                                                    "unit": "bag"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].unit")


def test_a_piece_of_a_box_reads_in_pieces_of_the_box_and_reverts_exactly(
        registry: Registry) -> None:
    """Issue 29: a hinge of a box of 3 returned read "0.333333 box (1 pcs)"; two of them
    made 0.666666 box, which no later figure adds up to. A piece of a box is said as the
    buyer counts it, "1 pc of a box of 3", in the preview, the log and the order; the
    line's figure is the one the pieces stand for; reverting one return takes exactly its
    piece back, and the rest can still go back in whole boxes."""
    world(registry)
    apply(registry, "create_item", sku="HINGE", name="Hinge", kind="material")
    apply(registry, "set_supplier_item", sku="HINGE", supplier="Alpha", purchase_unit="box",
          units_per_purchase_unit="3", price_breaks=[{"min_quantity": "1", "unit_price": "6"}])
    po = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "HINGE", "unit": "box", "quantity": "4"}])
    number = po["number"]
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "HINGE", "quantity": "2"}])
    one = {"number": number, "reason": "bent", "lines": [{"sku": "HINGE", "quantity": "1"}]}
    preview = registry.invoke("create_supplier_return", one, ADMIN)
    assert _changes(preview)["line HINGE returned"] == ("0", "1 pc of a box of 3")
    first = apply(registry, "create_supplier_return", **one)
    second = apply(registry, "create_supplier_return", **one)
    assert _changes(second)["line HINGE returned"] == ("1 pc of a box of 3",
                                                      "2 pcs of a box of 3")
    line = registry.invoke("get_purchase_order", {"number": number}, ADMIN)["lines"][0]
    assert (line["returned_quantity"], line["unit"], line["pack"]) == ("0.666667", "box",
                                                                       "3 pcs")
    third = apply(registry, "create_supplier_return", **one)
    assert _changes(third)["line HINGE returned"] == ("2 pcs of a box of 3", "1 box (3 pcs)")
    for done in (third, first):
        apply(registry, "revert_operation", operation_id=done["operation_id"])
    line = registry.invoke("get_purchase_order", {"number": number}, ADMIN)["lines"][0]
    assert line["returned_quantity"] == "0.333333" and stock_of(registry, "HINGE")[0] == D(5)
    # what is left goes back as 1 box and 2 pcs: the figures add up to what came in
    apply(registry, "create_supplier_return", number=number, reason="all of it",
          lines=[{"sku": "HINGE", "quantity": "5"}])
    line = registry.invoke("get_purchase_order", {"number": number}, ADMIN)["lines"][0]
    assert (line["done_quantity"], line["returned_quantity"]) == ("2", "2")
    assert stock_of(registry, "HINGE")[0] == D(0)


def test_a_returns_notes_and_reference_read_back_by_number_and_by_order(
        registry: Registry) -> None:
    """Issue 29: a return took notes and the partner's reference, and nothing read them
    back."""
    number = _boxes(registry)
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "RESA", "quantity": "2"}])
    made = apply(registry, "create_supplier_return", number=number, reason="crushed",
                 notes="Photos sent to Alpha", reference="RMA-77",
                 lines=[{"sku": "RESA", "quantity": "1", "unit": "box"}])
    got = registry.invoke("get_return", {"number": made["number"]}, ADMIN)
    assert (got["notes"], got["reference"], got["order_number"]) == (
        "Photos sent to Alpha", "RMA-77", number)
    listed = registry.invoke("list_returns", {"order": number}, ADMIN)["returns"]
    assert [r["number"] for r in listed] == [made["number"]]
    assert registry.invoke("list_returns", {"order": "PO-99999"}, ADMIN)["returns"] == []
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("get_return", {"number": "RET-99999"}, ADMIN)
    assert (info.value.code, info.value.field) == ("not_found", "number")


def test_a_returns_lines_read_in_their_order_lines_unit_everywhere(registry: Registry) -> None:
    """Issue 29: a return of a line bought in boxes read in pieces alone ("1 pcs"): its
    preview, get_return, list_returns and the log say it as the order does, with the
    stock figure and the partner beside it."""
    world(registry)
    apply(registry, "create_item", sku="HINGE", name="Hinge", kind="material")
    apply(registry, "set_supplier_item", sku="HINGE", supplier="Alpha", purchase_unit="box",
          units_per_purchase_unit="3", price_breaks=[{"min_quantity": "1", "unit_price": "6"}])
    number = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
                   lines=[{"sku": "HINGE", "unit": "box", "quantity": "4"}])["number"]
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "HINGE", "quantity": "3"}])
    piece = {"number": number, "reason": "bent", "lines": [{"sku": "HINGE", "quantity": "1"}]}
    preview = registry.invoke("create_supplier_return", piece, ADMIN)
    assert "1 pc of a box of 3 HINGE" in preview["summary"], preview["summary"]
    first = apply(registry, "create_supplier_return", **piece)
    boxes = apply(registry, "create_supplier_return", number=number, reason="wet",
                  lines=[{"sku": "HINGE", "quantity": "2", "unit": "box"}])
    assert "2 box (6 pcs) HINGE" in boxes["summary"], boxes["summary"]
    got = registry.invoke("get_return", {"number": first["number"]}, ADMIN)
    assert (got["partner"], got["currency"]) == ("Alpha", "EUR")
    assert [(ln["quantity"], ln["unit"], ln["line_quantity"], ln["line_unit"],
             ln["quantity_text"]) for ln in got["lines"]] == [
        ("1", "pcs", "0.333333", "box", "1 pc of a box of 3")]
    listed = registry.invoke("list_returns", {"order": number}, ADMIN)["returns"]
    assert [(r["partner"], [(ln["line_quantity"], ln["quantity_text"]) for ln in r["lines"]])
            for r in listed] == [("Alpha", [("2", "2 box (6 pcs)")]),
                                 ("Alpha", [("0.333333", "1 pc of a box of 3")])]
    for fmt in ("text", "md"):  # the CLI's and MCP's words: the figures stay in the JSON
        said = render(registry.invoke("list_returns", {"order": number}, ADMIN), fmt)
        assert "1 pc of a box of 3" in said and "2 box (6 pcs)" in said, said
        assert "0.333333" not in said, said
    log = registry.invoke("get_operation_log", {"limit": 5}, ADMIN)["entries"]
    said = " ".join(e["summary"] for e in log)
    assert "1 pc of a box of 3 HINGE" in said and "2 box (6 pcs) HINGE" in said, said
    assert "0.333333" not in said, said



def test_a_receipt_whose_log_reads_no_figure_is_not_reverted_on_a_guess(
        registry: Registry) -> None:
    """A revert reads the line's figure in boxes back from the log; a log it cannot read
    (written in other words) was taken as 0, so the stock went back and the line still
    counted the boxes. It is refused instead, and nothing moves."""
    number = _boxes(registry)
    got = apply(registry, "receive_purchase_order", number=number,
                lines=[{"sku": "RESA", "quantity": "4"}])
    with registry.store.writing() as s:
        row = s.scalars(select(OperationLog).where(
            OperationLog.operation_id == got["operation_id"])).one()
        row.result = {**row.result, "changes": [
            {**c, "after": "four boxes"} if c["field"] == "line RESA received" else c
            for c in row.result["changes"]]}
        s.commit()
    err = refused(registry, "revert_operation", {"operation_id": got["operation_id"]})
    assert (err.code, err.field) == ("conflict", "operation_id")
    assert "'four boxes'" in err.message and "box" in err.message
    line = registry.invoke("get_purchase_order", {"number": number}, ADMIN)["lines"][0]
    assert line["done_quantity"] == "4" and stock_of(registry, "RESA")[0] == D(400)
