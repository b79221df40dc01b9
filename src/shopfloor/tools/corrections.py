"""Fixing mistakes without editing history: close short, revert an operation, correct a
receipt, a shipment or a manufacturing order. Each is a previewed write whose apply adds
reversing and new ledger rows in one transaction."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections import kinds as revert_kinds
from shopfloor.domain.corrections import orders as corrections
from shopfloor.domain.corrections import production as mo_corrections
from shopfloor.domain.corrections import reverts
from shopfloor.domain.lines.rules import describe_close
from shopfloor.domain.production import closing as mo_closing
from shopfloor.domain.purchasing import closing as po_closing
from shopfloor.domain.sales import closing as so_closing
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry import catalogue
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Tool, Toolset, WriteRequest
from shopfloor.store.tables import ManufacturingOrder, PurchaseOrder, SalesOrder
from shopfloor.tools.fields import Amount, Key, Money, NonNegative, Out, Text
from shopfloor.tools.purchasing.orders import PurchaseOrderOut, locked_po, purchase_order_out
from shopfloor.tools.refs import NumberOrId, number_of
from shopfloor.tools.sales import SalesOrderOut, locked_so, sales_order_out
from shopfloor.tools.views import ManufacturingOrderOut, manufacturing_order_out

tools = Toolset("corrections")


class CloseOrder(NumberOrId, WriteRequest):
    reason: Text | None = None


def _why(reason: str | None) -> str:
    """A correction's reason, in its summary: what the operation log shows."""
    return f" (reason: {reason})" if reason else ""


@tools.write("close_purchase_order", title="Close purchase order short",
             response=PurchaseOrderOut,
             role=Role.admin,
             description="Close a partly received purchase order with what it has: the rest "
                         "is no longer on order, for MRP too.",
             destructive=True,
             undo=Undo.using(reverts.closed("purchase_order")))
def close_purchase_order(op: Op, req: CloseOrder) -> Done[PurchaseOrderOut]:
    closed = po_closing.close_purchase_order(op, locked_po(op, req), req.reason)
    po = closed.document
    return Done(describe_close("purchase order", po.number, len(closed.lines)),
                purchase_order_out(po))


@tools.write("close_sales_order", title="Close sales order short", response=SalesOrderOut,
             role=Role.admin,
             description="Close a partly shipped sales order with what it shipped: the rest "
                         "is released from committed stock.",
             destructive=True,
             undo=Undo.using(reverts.closed("sales_order")))
def close_sales_order(op: Op, req: CloseOrder) -> Done[SalesOrderOut]:
    closed = so_closing.close_sales_order(op, locked_so(op, req), req.reason)
    so = closed.document
    return Done(describe_close("sales order", so.number, len(closed.lines)),
                sales_order_out(so))


@tools.write("close_manufacturing_order", title="Close manufacturing order short",
             response=ManufacturingOrderOut, role=Role.admin,
             description="Finish a manufacturing order with what it made: the rest's "
                         "components are released from committed stock.",
             destructive=True,
             undo=Undo.using(reverts.closed("manufacturing_order")))
def close_manufacturing_order(op: Op, req: CloseOrder) -> Done[ManufacturingOrderOut]:
    mo = mo_closing.close(
        op, number_of(op, ManufacturingOrder, req, "manufacturing order"), req.reason)
    return Done(mo_closing.short_of(mo), manufacturing_order_out(mo))


class LedgerRowOut(Out):
    sku: str
    location: str
    quantity: Amount
    unit_cost: Amount
    value: Amount | None = None
    reason: str
    document_type: str | None
    document_number: str | None
    reverses_movement: int | None = None


class RevertOut(Out):
    reverted_operation_id: str
    reverted_tool: str
    reverted_summary: str
    rows: list[LedgerRowOut] = Field(description="the reversing ledger rows")


class RevertOperation(WriteRequest):
    operation_id: Key = Field(description="the operation, as the operation log names it")
    reason: Text | None = Field(None, description="why it is reverted; shown in the "
                                                  "operation log")


@tools.write("revert_operation", title="Revert operation", response=RevertOut, role=Role.admin,
             description="Undo an applied write: reversing ledger rows, documents restored; "
                         "refused, listing each blocker, if anything depends on it.",
             destructive=True,
             undo=Undo.refused("apply the original operation again"))
def revert_operation(op: Op, req: RevertOperation) -> Done[RevertOut]:
    tools = catalogue.of(op)
    o = reverts.revert(op, req.operation_id, lambda name: _undo(tools.find(name)))
    done = tools.find(o.tool)
    n = len(o.rows)
    return Done(f"Revert: {_named(done.title if done else o.tool, o.result, o.arguments)}: "
                f"{n} ledger row{'s' * (n != 1)} reversed" + _why(req.reason),
                RevertOut(reverted_operation_id=o.operation_id, reverted_tool=o.tool,
                          reverted_summary=str(o.result.get("summary", "")),
                          rows=[LedgerRowOut(**r) for r in o.rows]))


def _undo(tool: Tool | None) -> reverts.Found:
    """How the logged tool declared it is undone: its reverser, or the reason it cannot
    and what to do instead (None: no tool of that name now)."""
    if tool is None:
        return None
    return tool.facts.undo.reverser or tool.facts.undo.instead


def _named(title: str, result: dict[str, Any], arguments: dict[str, Any]) -> str:
    """The operation as a person knows it: its title and its document (the id stays a
    link away, on the log entry)."""
    for source in (result, arguments):
        for key in ("number", "sku", "name", "code"):
            if isinstance(source.get(key), str) and source[key]:
                return f"{title} {source[key]}"
    return title


class CorrectReceipt(NumberOrId, WriteRequest):
    sku: Key
    quantity: NonNegative | None = Field(None, description="the right received quantity")
    unit_price: Money | None = Field(
        None, description="the right unit price, per the line's unit and in the order's "
                          "currency (a supplier's, if the line is in one)")
    lot: Key | None = None
    reason: Text | None = Field(None, description="why it is corrected; shown in the "
                                                 "operation log")


@tools.write("correct_purchase_receipt", title="Correct purchase receipt",
             response=PurchaseOrderOut,
             role=Role.admin,
             description="Fix a received quantity, price or lot; stock re-costed as if "
                         "right, what left at the old cost is a cost adjustment.",
             destructive=True,
             undo=Undo.using(revert_kinds.receipt_correction))
def correct_purchase_receipt(op: Op, req: CorrectReceipt) -> Done[PurchaseOrderOut]:
    number = number_of(op, PurchaseOrder, req, "purchase order")
    po = corrections.correct_purchase_receipt(op, number, req.sku, req.quantity,
                                              req.unit_price, req.lot)
    line = next(ln for ln in po.lines if ln.item.sku == req.sku)
    return Done(f"Correct receipt of {req.sku} on {number}: {fmt(line.received_quantity)} @ "
                f"{fmt(line.unit_price)}{_why(req.reason)}", purchase_order_out(po))


class CorrectShipment(NumberOrId, WriteRequest):
    sku: Key
    quantity: NonNegative | None = Field(None, description="the right shipped quantity")
    lot: Key | None = None
    reason: Text | None = Field(None, description="why it is corrected; shown in the "
                                                 "operation log")


@tools.write("correct_shipment", title="Correct shipment", response=SalesOrderOut,
             role=Role.admin,
             description="Fix a shipped quantity or lot; what comes back returns at the cost "
                         "it left with.",
             destructive=True,
             undo=Undo.using(revert_kinds.shipment_correction))
def correct_shipment(op: Op, req: CorrectShipment) -> Done[SalesOrderOut]:
    number = number_of(op, SalesOrder, req, "sales order")
    so = corrections.correct_shipment(op, number, req.sku, req.quantity, req.lot)
    line = next(ln for ln in so.lines if ln.item.sku == req.sku)
    return Done(f"Correct shipment of {req.sku} on {number}: {fmt(line.fulfilled_quantity)} "
                "shipped" + (f" from lot {req.lot}" if req.lot else "") + _why(req.reason),
                sales_order_out(so))


class UsedIn(Request):
    sku: Key
    quantity: NonNegative
    lot: Key | None = None


class CorrectManufacturing(NumberOrId, WriteRequest):
    completed_quantity: NonNegative | None = Field(None, description="the right quantity made")
    consumed: list[UsedIn] | None = Field(None, min_length=1, max_length=200)
    reason: Text | None = Field(None, description="why it is corrected; shown in the "
                                                 "operation log")


@tools.write("correct_manufacturing_order", title="Correct manufacturing order",
             response=ManufacturingOrderOut, role=Role.admin,
             description="Fix the quantity made, or used per component (re-costs the "
                         "product).",
             destructive=True,
             undo=Undo.using(revert_kinds.production_correction))
def correct_manufacturing_order(op: Op, req: CorrectManufacturing
                                ) -> Done[ManufacturingOrderOut]:
    number = number_of(op, ManufacturingOrder, req, "manufacturing order")
    mo = mo_corrections.correct(op, number, req.completed_quantity, [
        mo_corrections.Used(u.sku, u.quantity, u.lot) for u in req.consumed or ()])
    return Done(f"Correct {number}: {fmt(mo.completed_quantity)} of {fmt(mo.quantity)} made"
                + _why(req.reason),
                manufacturing_order_out(mo))
