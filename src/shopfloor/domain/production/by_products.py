"""By-products: what making a product also gives (sawdust from planks), each with the
share of the making's cost it carries; the product carries the rest.

A recipe's by-products are replaced whole, like its components. An order keeps them as
they stood when it was made (its `by_products`, beside its components' snapshot), so a
later change does not rewrite what a running order gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import delete, select

from shopfloor.domain.base import lookup, resolve
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import yields
from shopfloor.domain.stock.counted import precision
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.kernel import units
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import HUNDRED, ZERO, cost, fmt
from shopfloor.store.tables import Item, ManufacturingOrder, RecipeByProduct


class ByProduct(NamedTuple):
    sku: str
    quantity: Decimal            # per unit of the product
    cost_share_percent: Decimal  # of the cost of what a completion consumed


def _said(rows: Sequence[tuple[str, Decimal, Decimal]]) -> str | None:
    return ", ".join(f"{fmt(q)} {sku} ({fmt(p)}%)" for sku, q, p in rows) or None


def of(op: Op, product_id: int) -> list[RecipeByProduct]:
    return list(op.session.scalars(select(RecipeByProduct).where(
        RecipeByProduct.product_id == product_id).order_by(RecipeByProduct.position)).unique())


def replace(op: Op, product: Item, specs: Sequence[ByProduct]) -> list[RecipeByProduct]:
    if specs and product.kind == "material":
        raise ValidationFailed(f"{product.sku} is a material: it is bought, not made",
                               field="by_products")
    if len(specs) > 50:
        raise ValidationFailed("at most 50 by-products", field="by_products")
    total = ZERO
    for i, b in enumerate(specs):
        if b.sku == product.sku:
            raise ValidationFailed(f"{b.sku} is the product itself", field=f"by_products[{i}].sku")
        if b.quantity <= 0:
            raise ValidationFailed("a by-product comes in a quantity above zero",
                                   field=f"by_products[{i}].quantity")
        if b.cost_share_percent < 0:
            raise ValidationFailed("a share cannot be negative",
                                   field=f"by_products[{i}].cost_share_percent")
        total += b.cost_share_percent
        if total > HUNDRED:
            raise ValidationFailed(f"the by-products' shares come to {fmt(total)}%, over 100%",
                                   field=f"by_products[{i}].cost_share_percent")
    resolve.once([(b.sku, f"by_products[{i}].sku") for i, b in enumerate(specs)])
    items = [lookup.item(op, b.sku, fld=f"by_products[{i}].sku") for i, b in enumerate(specs)]
    old = of(op, product.id)
    before = _said([(r.item.sku, r.quantity, r.cost_share_percent) for r in old])
    op.session.execute(delete(RecipeByProduct).where(RecipeByProduct.product_id == product.id))
    rows = [RecipeByProduct(product_id=product.id, item_id=item.id, item=item, position=i,
                            quantity=b.quantity, cost_share_percent=b.cost_share_percent)
            for i, (b, item) in enumerate(zip(specs, items, strict=True))]
    op.session.add_all(rows)
    after = _said([(b.sku, b.quantity, b.cost_share_percent) for b in specs])
    if after != before:
        op.change("recipe_by_products", product.sku, "by_products", before, after)
        touch(product)
    op.session.flush()
    return rows


def snapshot(op: Op, product_id: int) -> list[list[Any]] | None:
    """An order's copy: [[item_id, quantity per unit, share %], ...] as strings."""
    rows = of(op, product_id)
    return [[r.item_id, str(r.quantity), str(r.cost_share_percent)] for r in rows] or None


def counted(op: Op, product: Item, quantity: Decimal) -> None:
    """An order that would give part of a piece of a by-product is refused where it is
    made, naming the by-product, as one taking part of a piece of a component is."""
    for r in of(op, product.id):
        gives, places = yields.stored(r.quantity * quantity), precision(r.item)
        if not units.fits(gives, places):
            raise ValidationFailed(
                f"{fmt(quantity)} {product.sku} would give {fmt(gives)} {r.item.uom} of "
                f"{r.item.sku} ({fmt(r.quantity)} a unit), a by-product counted in "
                f"{r.item.uom} to {units.said_precision(places)}: make a quantity that gives "
                f"whole {r.item.uom}", field="quantity",
                details={"sku": r.item.sku, "gives": fmt(gives), "precision": places})


def given(op: Op, mo: ManufacturingOrder, before: Decimal, after: Decimal
          ) -> list[tuple[Item, Decimal]]:
    """What the completions between two cumulative figures give of each by-product, the
    difference of the cumulative figures rounded down to how it is counted: the same sum
    whether the units are made (or taken back, `after` below `before`) at once or in parts."""
    if not mo.by_products:
        return []
    items = {i.id: i for i in op.session.scalars(select(Item).where(
        Item.id.in_([row[0] for row in mo.by_products])))}
    stock.prefetch(op, list(items.values()), mo.location)
    out = []
    low, high = sorted((before, after))
    for item_id, per, _share in mo.by_products:
        item, places = items[item_id], precision(items[item_id])
        quantity = storable(yields.down(Decimal(per) * high, places)
                            - yields.down(Decimal(per) * low, places), "quantity")
        if quantity > 0:
            out.append((item, quantity))
    return out


def book(op: Op, mo: ManufacturingOrder, made: Decimal, total: Decimal) -> Decimal:
    """A completion's by-products into stock, each at its share of `total` (what the
    completion consumed), spread over its quantity; returns what the product carries.
    Completed in parts, each part gives the difference of the cumulative figures rounded
    down to how the by-product is counted (0.5 a unit: 0, 1, 0, 1): a part that gives
    none takes no share, and the parts add up to the whole."""
    if not mo.by_products:
        return total
    rest, done, shares = total, mo.completed_quantity, {r[0]: r[2] for r in mo.by_products}
    for item, quantity in given(op, mo, done, done + made):
        share = shares[item.id]
        value = cost(total * Decimal(share) / HUNDRED)
        rest -= value
        stock.post(op, Posting(item, mo.location, quantity, "production",
                               "manufacturing_order", mo.number,
                               unit_cost=cost(value / quantity), field="quantity",
                               value=value))
        op.change("manufacturing_order", mo.number, f"by-product {item.sku}", None,
                  f"{fmt(quantity)} @ {fmt(cost(value / quantity))}")
    return rest
