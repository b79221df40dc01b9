"""Items and their recipes."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pydantic import Field

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import reports
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import Item
from shopfloor.tools.fields import (
    Amount,
    Cursor,
    Gtin,
    Key,
    Kind,
    LeadDays,
    Limit,
    LotRule,
    Moment,
    Money,
    Name,
    NonNegative,
    Out,
    Page,
    PartnerName,
    Precision,
    Quantity,
    SearchText,
    ShelfLifeDays,
    SupplyDays,
    Uom,
    paged,
)
from shopfloor.tools.refs import SkuOrId, sku_of
from shopfloor.tools.views import (
    ComponentOut,
    ItemDetailOut,
    ItemOut,
    item_detail_out,
    item_out,
    lot_row_out,
    recipe_out,
    stock_then_out,
)

if TYPE_CHECKING:
    from shopfloor.domain.stock import items as catalog
# The domain of the writes, the recipes and the past is imported where it is used: a
# process whose first call is get_item (an MCP host's, a CLI read) imports this module
# for it, and those modules and the tables they map were a third of that call's CPU
# (issue 32). Lots too, for an item tracked in lots.

tools = Toolset("items")
REVERT_BULK = "shopfloor.domain.corrections.bulk"  # (imported by a revert, not by a read)


class SearchItems(Request):
    query: SearchText | None = Field(None, description="matches SKU or name")
    skus: list[Key] | None = Field(None, max_length=500, description="exactly these, "
                                   "deleted ones too")
    kind: Kind | None = None
    limit: Limit = 50
    cursor: Cursor | None = None


class ItemPage(Page):
    items: list[ItemOut]


@tools.read("search_items", everyday=True, title="Search items", response=ItemPage,
            description="Find items by SKU or name, with on-hand and available totals.")
def search_items(op: Op, req: SearchItems) -> ItemPage:
    from shopfloor.domain.stock import items as catalog

    found = catalog.search_items(op, req.query, req.kind, req.limit + 1, req.cursor,
                                 skus=req.skus)
    found, next_cursor = paged(found, req.limit, lambda i: i.sku)
    totals = catalog.totals(op, [i.id for i in found])
    return ItemPage(items=[item_out(i, totals[i.id]) for i in found], next_cursor=next_cursor)


class ItemRef(SkuOrId, Request):
    pass


def _item(op: Op, req: SkuOrId) -> Item:
    return lookup.item(op, sku_of(op, req))


class ItemAsOf(ItemRef):
    as_of: Moment | None = Field(None, description="its stock as the ledger stood then")


def _item_then(op: Op, found: reports.ItemDetail, moment: datetime) -> ItemDetailOut:
    """The item with its stock per location summed from the ledger up to `moment`."""
    from shopfloor.domain.stock import history

    rows = history.balances(op, moment, found.item.sku, None)
    lots = history.lots(op, moment, [(b.item_id, b.location_id) for b in rows])
    detail = item_detail_out(found)
    detail.stock = [stock_then_out(b, lots[(b.item_id, b.location_id)], moment.date(), None)
                    for b in rows]
    detail.on_hand = sum((b.on_hand for b in rows), Decimal(0))
    detail.available = None
    return detail


@tools.read("get_item", everyday=True, title="Get item", response=ItemDetailOut,
            description="One item by sku or id: its details, recipe and stock per location.")
def get_item(op: Op, req: ItemAsOf) -> ItemDetailOut:
    found = reports.item_detail(op, sku_of(op, req))
    if req.as_of is not None:
        return _item_then(op, found, req.as_of)
    if not (found.item.batch_tracked or found.item.serial_tracked):
        return item_detail_out(found)
    from shopfloor.domain.lots import reports as lot_reports

    rows = lot_reports.item_lots(op, found.item.sku)
    detail = item_detail_out(found, lot_reports.blocked_at(rows, op.now.date()))
    for row in rows:
        where = next(s for s in detail.stock if s.location == row.location)
        where.lots.append(lot_row_out(row))
    return detail


class ItemFields(WriteRequest):
    name: Name | None = None
    kind: Kind | None = None
    uom: Uom | None = Field(None, description="unit: pcs, kg, m ...")
    purchase_price: Money | None = None
    sales_price: Money | None = None
    reorder_point: NonNegative | None = None
    reorder_quantity: NonNegative | None = None
    order_multiple: Quantity | None = Field(None, description="pack size")
    supply_period_days: SupplyDays | None = None
    lead_time_days: LeadDays | None = None
    default_supplier: PartnerName | None = None
    batch_tracked: bool | None = None
    serial_tracked: bool | None = None
    lot_numbering: LotRule | None = Field(
        None, description="unnamed lots as e.g. FL-{date}-{seq}")
    gtin: Gtin | None = None
    weight: NonNegative | None = Field(None, description="kg per unit")
    precision: Precision | None = Field(
        None, description="decimal places")
    shelf_life_days: ShelfLifeDays | None = Field(None,
                                                  description="days a new lot keeps")

    def values(self) -> dict[str, object]:
        from shopfloor.domain.stock import items as catalog

        return {f: getattr(self, f) for f in catalog.ITEM_FIELDS if getattr(self, f) is not None}


class CreateItem(ItemFields):
    sku: Key
    name: Name
    kind: Kind = "material"


@tools.write("create_item", title="Create item", response=ItemOut,
             description="Create an item (material, intermediate or product).",
             destructive=False)
def create_item(op: Op, req: CreateItem) -> Done[ItemOut]:
    from shopfloor.domain.stock import items as catalog

    item = catalog.create_item(op, req.sku, req.values(), req.default_supplier)
    return Done(f"Create {item.kind} {item.sku} ({item.name})", item_out(item))


class ModifyItem(SkuOrId, ItemFields):
    clear_default_supplier: bool = False


@tools.write("modify_item", title="Modify item", response=ItemOut, role=Role.admin,
             description="Change an item's fields; only the fields given change.",
             destructive=True,
             undo=Undo.imported(REVERT_BULK, "item_fields"))
def modify_item(op: Op, req: ModifyItem) -> Done[ItemOut]:
    from shopfloor.domain.stock import items as catalog

    item = catalog.modify_item(op, sku_of(op, req), req.values(), req.default_supplier,
                               req.clear_default_supplier)
    fields = ", ".join(c.field for c in op.changes) or "nothing"
    return Done(f"Modify {item.sku}: {fields}", item_out(item))


class DeleteItem(SkuOrId, WriteRequest):
    pass


@tools.write("delete_item", title="Delete item", response=ItemOut, role=Role.admin,
             description="Delete an item with no stock, no open documents and no recipe use. "
                         "Its history is kept.",
             destructive=True)
def delete_item(op: Op, req: DeleteItem) -> Done[ItemOut]:
    from shopfloor.domain.stock import items as catalog

    item = catalog.delete_item(op, sku_of(op, req))
    return Done(f"Delete item {item.sku} ({item.name})", item_out(item))


class ByProductOut(Out):
    sku: str
    quantity: Amount
    cost_share_percent: Amount


class RecipeOut(ItemOut):
    components: list[ComponentOut]
    yields: dict[str, str] = Field(default_factory=dict)
    by_products: list[ByProductOut] = Field(default_factory=list)


def _recipe(op: Op, item: Item) -> RecipeOut:
    """`yields`: a component's attrition, set-up and rounding in words, where it has any."""
    from shopfloor.domain.production import by_products
    from shopfloor.domain.stock import yields

    ys = {ln.component.sku: yields.said(yields.of(ln)) or "" for ln in item.recipe_lines
          if not yields.of(ln).plain}
    bps = [ByProductOut(sku=r.item.sku, quantity=r.quantity,
                        cost_share_percent=r.cost_share_percent)
           for r in by_products.of(op, item.id)]
    return RecipeOut(**item_out(item).model_dump(), components=recipe_out(item), yields=ys,
                     by_products=bps)


class GetRecipe(SkuOrId, Request):
    pass


@tools.read("get_recipe", title="Get recipe", response=RecipeOut,
            description="The recipe (bill of materials) of an item: components per unit.")
def get_recipe(op: Op, req: GetRecipe) -> RecipeOut:
    return _recipe(op, _item(op, req))


class ComponentIn(Request):
    sku: Key
    quantity: Quantity = Field(description="per unit")
    attrition_percent: NonNegative | None = None
    setup_quantity: NonNegative | None = None
    rounding_multiple: NonNegative | None = None

    def spec(self) -> catalog.ComponentSpec:
        from shopfloor.domain.stock import items as catalog
        from shopfloor.domain.stock import yields

        return catalog.ComponentSpec(self.sku, self.quantity, yields.Yield(
            self.attrition_percent or Decimal(0), self.setup_quantity or Decimal(0),
            self.rounding_multiple))


class ByProductIn(Request):
    sku: Key
    quantity: Quantity
    cost_share_percent: NonNegative = Decimal(0)


class UpdateRecipe(SkuOrId, WriteRequest):
    components: list[ComponentIn] = Field(max_length=200)
    by_products: list[ByProductIn] | None = None  # None: as they are


@tools.write("update_recipe", title="Update recipe", response=RecipeOut, role=Role.admin,
             description="Replace an item's recipe (empty: remove it).",
             destructive=True,
             undo=Undo.imported(REVERT_BULK, "recipes"))
def update_recipe(op: Op, req: UpdateRecipe) -> Done[RecipeOut]:
    from shopfloor.domain.production import by_products
    from shopfloor.domain.stock import items as catalog

    item = catalog.update_recipe(op, sku_of(op, req), [c.spec() for c in req.components])
    if req.by_products is not None:
        by_products.replace(op, item, [by_products.ByProduct(b.sku, b.quantity,
                                                             b.cost_share_percent)
                                       for b in req.by_products])
    return Done(f"Set recipe of {item.sku}: {len(req.components)} components",
                _recipe(op, item))

