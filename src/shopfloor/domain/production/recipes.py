"""One component changed across every recipe that uses it: replaced, rescaled, or both.

Decided recipe by recipe, so the preview lists each product touched and each one
refused with its reason. Open manufacturing orders keep the components they were made
with (their own snapshot); only future orders see the change.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock.items import all_components, touch
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.kernel.numbers import fmt
from shopfloor.store.tables import Item, RecipeLine

STEP = Decimal("0.000001")


def _outcome(product: str, action: str, detail: str) -> dict[str, Any]:
    return {"product": product, "action": action, "detail": detail}


def _users(op: Op, component: str, replace_with: str | None, products: Sequence[str] | None
           ) -> tuple[Item, Item | None, list[Item]]:
    """The component, its replacement, and the products whose recipes change (with their
    lines, in one query), each key refused with the argument it came from."""
    old = lookup.item(op, component, fld="component")
    new = lookup.item(op, replace_with, fld="replace_with") if replace_with else None
    if new is not None and new.id == old.id:
        raise ValidationFailed("replace_with is the component itself", field="replace_with")
    stmt = (select(Item).join(RecipeLine, RecipeLine.product_id == Item.id)
            .where(RecipeLine.component_id == old.id, Item.archived.is_(False))
            .options(selectinload(Item.recipe_lines)).order_by(Item.sku))
    users = {p.sku: p for p in op.session.scalars(op.lock(stmt)).unique()}
    wanted = list(users) if products is None else list(products)
    for i, sku in enumerate(wanted):
        if sku not in users:
            lookup.item(op, sku, fld=f"products[{i}]")  # not found, or found but not a user
            raise NotFound(f"{sku} does not use {component}", field=f"products[{i}]")
    if not wanted:
        raise NotFound(f"no recipe uses {component}", field="component")
    return old, new, [users[sku] for sku in wanted]


def _refusal(rejected: list[dict[str, Any]], outcomes: list[dict[str, Any]]
             ) -> ValidationFailed:
    return ValidationFailed(
        f"{len(rejected)} of {len(outcomes)} recipes refused ({rejected[0]['product']}: "
        f"{rejected[0]['detail']}); change them by hand, or the rest with skip_rejects=true",
        field="component", details={"rejected": rejected, "recipes": outcomes})


def check(op: Op, component: str, replace_with: str | None, scale: Decimal | None,
          products: Sequence[str] | None, *, skip_rejects: bool) -> None:
    """Every refusal of the change decided and nothing changed: what an apply without a
    preview is held to before it queues (a read of the recipes that use the component)."""
    old, new, users = _users(op, component, replace_with, products)
    inside_new = all_components(op, new.id) | {new.id} if new is not None else set()
    outcomes = [_decide(p, old, new, scale, inside_new)[0] for p in users]
    rejected = [o for o in outcomes if o["action"] == "reject"]
    if rejected and not skip_rejects:
        raise _refusal(rejected, outcomes)


def batch_update(op: Op, component: str, replace_with: str | None, scale: Decimal | None,
                 products: Sequence[str] | None, *, skip_rejects: bool) -> list[dict[str, Any]]:
    old, new, users = _users(op, component, replace_with, products)
    inside_new = all_components(op, new.id) | {new.id} if new is not None else set()
    outcomes = []
    for n, product in enumerate(users):
        op.progress(n / len(users), f"recipe {n + 1} of {len(users)}")
        outcomes.append(_change(op, product, old, new, scale, inside_new))
    rejected = [o for o in outcomes if o["action"] == "reject"]
    if rejected and not skip_rejects:
        op.refuse(_refusal(rejected, outcomes))
    return outcomes


def _decide(product: Item, old: Item, new: Item | None, scale: Decimal | None,
            inside_new: set[int]) -> tuple[dict[str, Any], Decimal | None]:
    """The outcome for one recipe, and its new quantity (None when refused)."""
    if product.kind == "material":  # a recipe kept from before materials were refused one
        return _outcome(product.sku, "reject",
                        f"{product.sku} is a material and a material has no recipe: make it "
                        "a product or intermediate, or empty its recipe"), None
    line = next(ln for ln in product.recipe_lines if ln.component_id == old.id)
    if new is not None:
        if product.id in inside_new:
            return _outcome(product.sku, "reject",
                            f"{new.sku} contains {product.sku}: a recipe cannot include "
                            "itself"), None
        if any(ln.component_id == new.id for ln in product.recipe_lines):
            return _outcome(product.sku, "reject", f"already uses {new.sku}"), None
    quantity = line.quantity
    if scale is not None:
        quantity = (line.quantity * scale).quantize(STEP)
        if quantity <= 0:
            return _outcome(product.sku, "reject",
                            f"{fmt(line.quantity)} x {fmt(scale)} rounds to zero"), None
    target = new or old
    return _outcome(product.sku, "update", f"{old.sku} x {fmt(line.quantity)} -> "
                    f"{target.sku} x {fmt(quantity)}"), quantity


def _change(op: Op, product: Item, old: Item, new: Item | None, scale: Decimal | None,
            inside_new: set[int]) -> dict[str, Any]:
    outcome, quantity = _decide(product, old, new, scale, inside_new)
    if quantity is None:
        return outcome
    line = next(ln for ln in product.recipe_lines if ln.component_id == old.id)
    before = line.quantity
    if new is not None:
        op.change("recipe", product.sku, old.sku, before, None)
        line.component_id, line.component = new.id, new
    op.change("recipe", product.sku, (new or old).sku, None if new else before, quantity)
    line.quantity = quantity
    touch(product)
    return outcome
