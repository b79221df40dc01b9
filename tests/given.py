"""One fixture language for every test (issue 33): the company a test starts from, said
in a few words and made through the registry's public tools, the way a user makes it.

    given.company()                        # MAIN and SHOP, Acme and Bob, M1, M2 and P1
    given.item("RES", uom="m")             # a material called "Item RES"
    given.stock({"RES": ("10", "2.00")})   # counted in at MAIN, 2.00 each
    given.po({"RES": ("5", "2.10")}, receive=True)

Each call answers what its tool answered, so a test reads a document's number from it.
Defaults are the names the tests share: location MAIN, supplier Acme, customer Bob.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply

# a line is a quantity, a quantity and a unit price (an adjustment's: a unit cost), or the
# line's fields as the tool takes them (lots, units ...), "quantity" among them
Line = str | tuple[str, str] | Mapping[str, Any]
Lines = Mapping[str, Line]


def order_lines(lines: Lines, price: str = "unit_price") -> list[dict[str, Any]]:
    """`{"M1": "10", "M2": ("5", "2.00")}` as a tool's lines, in the order given."""
    out: list[dict[str, Any]] = []
    for sku, line in lines.items():
        if isinstance(line, Mapping):
            out.append({"sku": sku, **line})
            continue
        quantity, each = (line, None) if isinstance(line, str) else line
        out.append({"sku": sku, "quantity": quantity} | ({price: each} if each else {}))
    return out


class Given:
    """A registry's company, built up one call at a time."""

    def __init__(self, registry: Registry, actor: Actor = ADMIN) -> None:
        self.registry = registry
        self.actor = actor

    def apply(self, tool: str, **args: Any) -> dict[str, Any]:
        return apply(self.registry, tool, self.actor, **args)

    def company(self, *, negative: bool = False) -> Given:
        """The small company most tests start from: MAIN (negative stock allowed if asked)
        and SHOP, supplier Acme, customer Bob, materials M1 and M2 and product P1 bought at
        1 each."""
        self.location("MAIN", allow_negative=negative)
        self.location("SHOP")
        self.supplier("Acme")
        self.customer("Bob")
        for sku in ("M1", "M2"):
            self.item(sku, purchase_price="1")
        self.item("P1", kind="product", purchase_price="1")
        return self

    def bakery(self, **flour: Any) -> Given:
        """The lot tests' bakery: MAIN, supplier Mill, customer Cafe, and FLOUR tracked by
        lot (with `flour`'s fields)."""
        self.location("MAIN")
        self.supplier("Mill")
        self.customer("Cafe")
        self.item("FLOUR", name="Flour", batch_tracked=True, **flour)
        return self

    def location(self, code: str = "MAIN", name: str | None = None,
                 **fields: Any) -> dict[str, Any]:
        return self.apply("create_location", code=code, name=name or code.title(), **fields)

    def supplier(self, name: str = "Acme", **fields: Any) -> dict[str, Any]:
        return self.apply("create_supplier", name=name, **fields)

    def customer(self, name: str = "Bob", **fields: Any) -> dict[str, Any]:
        return self.apply("create_customer", name=name, **fields)

    def item(self, sku: str, kind: str = "material", *, name: str | None = None,
             **fields: Any) -> dict[str, Any]:
        return self.apply("create_item", sku=sku, name=name or f"Item {sku}", kind=kind,
                          **fields)

    def modify(self, sku: str, **fields: Any) -> dict[str, Any]:
        """An item changed after it was made (what a test means to version or re-count)."""
        return self.apply("modify_item", sku=sku, **fields)

    def offer(self, sku: str, supplier: str = "Acme", **fields: Any) -> dict[str, Any]:
        """What `supplier` sells `sku` as (its unit, pack, price breaks ...)."""
        return self.apply("set_supplier_item", sku=sku, supplier=supplier, **fields)

    def recipe(self, sku: str, components: Mapping[str, str], **fields: Any) -> dict[str, Any]:
        """`sku` made of `components` (sku: quantity per unit)."""
        return self.apply("update_recipe", sku=sku, components=[
            {"sku": s, "quantity": q} for s, q in components.items()], **fields)

    def work_centre(self, code: str, name: str | None = None,
                    **fields: Any) -> dict[str, Any]:
        return self.apply("create_work_centre", code=code, name=name or code.title(), **fields)

    def routing(self, sku: str, operations: list[dict[str, Any]]) -> dict[str, Any]:
        return self.apply("update_routing", sku=sku, operations=operations)

    def stock(self, lines: Lines, location: str = "MAIN", reason: str = "opening",
              **fields: Any) -> dict[str, Any]:
        """Stock found by an adjustment: sku -> quantity, or (quantity, unit cost)."""
        found = [{"quantity_delta": ln.pop("quantity"), **ln}
                 for ln in order_lines(lines, "unit_cost")]
        return self.apply("create_stock_adjustment", location=location, reason=reason,
                          lines=found, **fields)

    def po(self, lines: Lines, supplier: str = "Acme", location: str = "MAIN", *,
           receive: bool = False, **fields: Any) -> dict[str, Any]:
        """A purchase order (received in full if asked): sku -> quantity, or (quantity,
        unit price)."""
        made = self.apply("create_purchase_order", supplier=supplier, location=location,
                          lines=order_lines(lines), **fields)
        if receive:
            self.apply("receive_purchase_order", number=made["number"])
        return made

    def so(self, lines: Lines, customer: str = "Bob", location: str = "MAIN", *,
           fulfil: bool = False, **fields: Any) -> dict[str, Any]:
        """A sales order (shipped in full if asked): sku -> quantity, or (quantity, unit
        price)."""
        made = self.apply("create_sales_order", customer=customer, location=location,
                          lines=order_lines(lines), **fields)
        if fulfil:
            self.apply("fulfill_order", number=made["number"])
        return made

    def mo(self, sku: str, quantity: str, location: str = "MAIN", *,
           complete: bool = False, **fields: Any) -> dict[str, Any]:
        """A manufacturing order (completed in full if asked)."""
        made = self.apply("create_manufacturing_order", sku=sku, quantity=quantity,
                          location=location, **fields)
        if complete:
            self.apply("complete_manufacturing_order", number=made["number"])
        return made
