"""Which lots (or serials) each line of a return moves, and that its order moved them.

A return line names its lots as a movement line does (`lots`, several with their
quantities; `serials`), or one in `lot`; a tracked line naming none comes back as the one
lot its order moved of the item. Goods go back as what they came or left as: a lot or
serial the order never shipped (customer return) or received (supplier return) is
refused, and so is more of a lot than the order moved of it less what already came back
of it, so no lot ends up holding more than it ever received. What the order moved and
what came back are its ledger rows that still count (not reverted); a scrapped customer
return line leaves no row, so it is held only to its line's quantity.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.lots import LotIn, Part
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.errors import ShopfloorError, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.tables import Batch, StockMovement, StockReturn

Key = tuple[int, int | None]
"""(item id, batch id): only rows in a lot are read"""


def _line(item: Any, quantity: Decimal, fld: str, lot: str | None,
          named: Sequence[LotIn], serials: Sequence[str]) -> lots.Line:
    """`lot` is one lot or one serial: as `lots` or `serials` would name it."""
    if lot is None:
        return lots.Line(item, quantity, fld, named, serials)
    where = f"{fld}.lot"
    if named or serials:
        raise ValidationFailed("name one lot in lot, or several in lots or serials, not both",
                               field=where)
    if not lots.tracked(item):
        raise ValidationFailed(f"{item.sku} is not lot- or serial-tracked; leave out lot",
                               field=where)
    if not item.serial_tracked:
        return lots.Line(item, quantity, fld, (LotIn(lot),))
    if quantity != 1:
        raise ValidationFailed(f"{item.sku} is serial-tracked: lot names one serial, one "
                               f"unit; name the {fmt(quantity)} in serials", field=where)
    return lots.Line(item, quantity, fld, (), (lot,))


def _net(op: Op, items: set[int], *where: Any) -> dict[Key, Decimal]:
    rows = op.session.execute(
        select(StockMovement.item_id, StockMovement.batch_id, func.sum(StockMovement.quantity))
        .where(StockMovement.item_id.in_(sorted(items)), StockMovement.batch_id.is_not(None),
               unreverted(), *where)
        .group_by(StockMovement.item_id, StockMovement.batch_id))
    return {(i, b): q for i, b, q in rows}


def resolve(op: Op, kind: str, order_type: str, number: str,
            todo: Sequence[tuple[Any, Any, str]]) -> list[list[tuple[Part, str | None]]]:
    """Per (order line, spec, field) of a return, its parts with their lot numbers. `kind`
    is the return's ("customer", "supplier"); the order's rows go out ("sales_order") or
    come in."""
    unnamed = [_unnamed(line.item, spec) for line, spec, _ in todo]
    try:
        named = iter(lots.outgoing(op, [
            _line(line.item, spec.quantity, fld, spec.lot, spec.lots, spec.serials)
            for (line, spec, fld), skip in zip(todo, unnamed, strict=True) if not skip]))
    except ShopfloorError as exc:
        for (_, spec, fld) in todo:  # a lot named in `lot` is reported as `lot`
            if spec.lot is not None and (exc.field or "").startswith(
                    (f"{fld}.lots[", f"{fld}.serials[")):
                exc.field = f"{fld}.lot"
        raise
    parts = [[Part(None, spec.quantity, fld)] if skip else next(named)
             for (_, spec, fld), skip in zip(todo, unnamed, strict=True)]
    items = {line.item_id for line, _, _ in todo if lots.tracked(line.item)}
    if not items:
        return [[(p, None) for p in row] for row in parts]
    out_of_order = -1 if order_type == "sales_order" else 1
    moved = {k: q * out_of_order for k, q in _net(
        op, items, StockMovement.document_type == order_type,
        StockMovement.document_number == number).items()}
    back = {k: -q * out_of_order for k, q in _net(
        op, items, StockMovement.document_type == "stock_return",
        StockMovement.document_number.in_(select(StockReturn.number).where(
            StockReturn.order_number == number, StockReturn.kind == kind))).items()}
    names: dict[int | None, str] = dict(op.session.execute(
        select(Batch.id, Batch.lot_number).where(
            Batch.id.in_(sorted({b for _, b in moved if b is not None})))).all())
    verb = "shipped" if order_type == "sales_order" else "received"
    taken: dict[Key, Decimal] = defaultdict(lambda: ZERO)
    out = []
    for (line, spec, fld), row in zip(todo, parts, strict=True):
        resolved = []
        for part in row:
            if lots.tracked(line.item):
                part = _one(line.item, part, fld, number, moved, names) \
                    if part.batch_id is None else part
                ident, qty = _fields(part.field, fld, spec.lot is not None)
                key = (line.item_id, part.batch_id)
                if moved.get(key, ZERO) <= 0:
                    raise ValidationFailed(f"{line.item.sku} {_name(op, line.item, part)} was "
                                           f"not {verb} on {number}", field=ident)
                left = moved[key] - back.get(key, ZERO) - taken[key]
                if part.quantity > left:
                    raise ValidationFailed(
                        f"{line.item.sku}: returning {fmt(part.quantity)} of "
                        f"{names[part.batch_id]} but only {fmt(left)} of it {verb} on "
                        f"{number} and not yet returned", field=qty)
                taken[key] += part.quantity
            resolved.append((part, names.get(part.batch_id)))
        out.append(resolved)
    return out


def _unnamed(item: Any, spec: Any) -> bool:
    """A serial-tracked line naming no serial: left to `_one`, where a movement line would
    be refused for naming none."""
    return bool(getattr(item, "serial_tracked", False)) and not (
        spec.lot or spec.lots or spec.serials)


def _one(item: Any, part: Part, fld: str, number: str, moved: dict[Key, Decimal],
         names: dict[int | None, str]) -> Part:
    """A tracked line naming no lot: the one lot the order moved of the item."""
    mine = sorted((names[b], b) for (i, b), q in moved.items() if i == item.id and q > 0)
    if len(mine) == 1:
        return Part(mine[0][1], part.quantity, part.field)
    kind = "serial" if item.serial_tracked else "lot"
    raise ValidationFailed(
        f"{item.sku} moved on {number} as {len(mine)} {kind}s "
        f"({', '.join(n for n, _ in mine)}): name the one coming back" if mine else
        f"{item.sku} is tracked: name the {kind}", field=f"{fld}.lot")


def _fields(part_field: str, fld: str, via_lot: bool) -> tuple[str, str]:
    """The arguments to blame for a part's lot and for its quantity."""
    if via_lot or part_field == fld:  # named in `lot`, or not named at all
        return f"{fld}.lot", f"{fld}.quantity"
    if ".serials[" in part_field:
        return part_field, part_field
    return f"{part_field}.lot", f"{part_field}.quantity"


def _name(op: Op, item: Any, part: Part) -> str:
    found = op.session.execute(select(Batch.lot_number).where(
        Batch.id == part.batch_id)).scalar()
    return f"{'serial' if item.serial_tracked else 'lot'} {found}"
