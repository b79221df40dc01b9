"""Stock adjustments and transfers: the documents that move stock without an order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from shopfloor.domain import lookup, stock
from shopfloor.domain.catalog import touch
from shopfloor.domain.context import Op
from shopfloor.domain.sequences import claim_number
from shopfloor.domain.stock import Posting
from shopfloor.registry.errors import ValidationFailed
from shopfloor.store.tables import (
    Item,
    Location,
    StockAdjustment,
    StockAdjustmentLine,
    StockTransfer,
    StockTransferLine,
)


@dataclass(frozen=True)
class AdjustLine:
    sku: str
    quantity_delta: Decimal | None = None
    counted_quantity: Decimal | None = None
    unit_cost: Decimal | None = None


def _incoming_cost(item: Item, bal_avg: Decimal, given: Decimal | None) -> Decimal:
    """Found stock is valued at the given cost, else the current average, else list price."""
    if given is not None:
        return given
    return bal_avg if bal_avg > 0 else item.purchase_price


def _post_lines(op: Op, adj: StockAdjustment, location: Location,
                lines: Sequence[AdjustLine], known: Mapping[str, Item] | None = None) -> None:
    seen: set[str] = set()
    for i, spec in enumerate(lines):
        fld = f"lines[{i}]"
        if spec.sku in seen:
            raise ValidationFailed(f"{spec.sku} appears twice; use one line per item",
                                   field=f"{fld}.sku")
        seen.add(spec.sku)
        item = known[spec.sku] if known else lookup.item(op, spec.sku, fld=f"{fld}.sku")
        bal = stock.balance(op, item, location)
        if spec.counted_quantity is not None:
            delta = spec.counted_quantity - bal.on_hand
        else:
            assert spec.quantity_delta is not None
            delta = spec.quantity_delta
        if delta == 0:
            op.warn("no_change", f"{item.sku}: counted quantity equals on hand", fld=fld)
        cost = _incoming_cost(item, bal.average_cost, spec.unit_cost)
        adj.lines.append(StockAdjustmentLine(
            item_id=item.id, item=item, position=i, quantity_delta=delta,
            counted_quantity=spec.counted_quantity, unit_cost=cost,
        ))
        if delta != 0:
            stock.post(op, Posting(item, location, delta, "adjustment", "stock_adjustment",
                                   adj.number, unit_cost=cost if delta > 0 else None,
                                   field=f"{fld}.quantity_delta"))


def create_adjustment(op: Op, location_code: str, reason: str, lines: Sequence[AdjustLine],
                      number: str | None = None, known: Mapping[str, Item] | None = None
                      ) -> StockAdjustment:
    """`known`: items already resolved by SKU (bulk callers), saving a lookup per line."""
    location = lookup.location(op, location_code)
    adj = StockAdjustment(number=claim_number(op, StockAdjustment, number, "ADJ"),
                          location=location, location_id=location.id, reason=reason,
                          created_at=op.now)
    op.session.add(adj)
    op.session.flush()
    _post_lines(op, adj, location, lines, known)
    return adj


def update_adjustment(op: Op, number: str, reason: str | None,
                      lines: Sequence[AdjustLine] | None) -> StockAdjustment:
    """Correct an adjustment by reversing its ledger rows and posting the new lines."""
    adj = lookup.stock_adjustment(op, number, lock=True)
    if reason is not None and reason != adj.reason:
        op.change("stock_adjustment", number, "reason", adj.reason, reason)
        adj.reason = reason
    if lines is not None:
        for old in adj.lines:
            if old.quantity_delta != 0:
                stock.post(op, Posting(old.item, adj.location, -old.quantity_delta, "correction",
                                       "stock_adjustment", adj.number,
                                       unit_cost=old.unit_cost if old.quantity_delta < 0 else None))
        adj.lines.clear()
        op.session.flush()
        _post_lines(op, adj, adj.location, lines)
    touch(adj)
    return adj


def create_transfer(op: Op, from_code: str, to_code: str,
                    lines: Sequence[tuple[str, Decimal]]) -> StockTransfer:
    source = lookup.location(op, from_code, fld="from_location")
    target = lookup.location(op, to_code, fld="to_location")
    if source.id == target.id:
        raise ValidationFailed("from_location and to_location are the same", field="to_location")
    tr = StockTransfer(number=claim_number(op, StockTransfer, None, "TR"),
                       from_location=source, from_location_id=source.id,
                       to_location=target, to_location_id=target.id, created_at=op.now)
    op.session.add(tr)
    op.session.flush()
    seen: set[str] = set()
    for i, (sku, qty) in enumerate(lines):
        if sku in seen:
            raise ValidationFailed(f"{sku} appears twice", field=f"lines[{i}].sku")
        seen.add(sku)
        item = lookup.item(op, sku, fld=f"lines[{i}].sku")
        out = stock.post(op, Posting(item, source, -qty, "transfer_out", "stock_transfer",
                                     tr.number, field=f"lines[{i}].quantity"))
        stock.post(op, Posting(item, target, qty, "transfer_in", "stock_transfer", tr.number,
                               unit_cost=out.unit_cost))
        tr.lines.append(StockTransferLine(item_id=item.id, item=item, position=i, quantity=qty,
                                          unit_cost=out.unit_cost))
    return tr
