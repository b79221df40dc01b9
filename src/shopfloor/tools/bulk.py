"""Bulk writes that run as jobs: item import, a component changed across recipes, and the
rebuild of balances. Each previews row by row like any write; its apply queues a job
that runs this same handler and checks nothing changed since the preview."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pydantic import Field, TypeAdapter, ValidationError

from shopfloor.domain import imports, rebuild, recipe_changes
from shopfloor.domain.context import Op
from shopfloor.registry.actor import Role
from shopfloor.registry.errors import ValidationFailed
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.tools.fields import Key, Kind, Money, Name, NonNegative, Out, Quantity, Uom

tools = Toolset()

MAX_ROWS = 50_000
STOCK_PREFIX = "on_hand:"


class ItemRow(Request):
    """One CSV row: every cell optional except sku; an empty cell leaves the field alone."""

    sku: Key
    name: Name | None = None
    kind: Kind | None = None
    uom: Uom | None = None
    purchase_price: Money | None = None
    sales_price: Money | None = None
    reorder_point: NonNegative | None = None
    reorder_quantity: NonNegative | None = None
    lead_time_days: int | None = Field(None, ge=0, le=3650)
    batch_tracked: bool | None = None
    default_supplier: Name | None = None
    unit_cost: Money | None = None


COLUMNS = tuple(ItemRow.model_fields)
_count = TypeAdapter(NonNegative)


def _header(names: Sequence[str] | None) -> list[str]:
    if not names:
        raise ValidationFailed("the CSV is empty: give a header row and one row per item",
                               field="csv")
    header = [_column((n or "").strip()) for n in names]
    for name in header:
        if name not in COLUMNS and not (name.startswith(STOCK_PREFIX) and
                                        len(name) > len(STOCK_PREFIX)):
            raise ValidationFailed(
                f"unknown column {name!r}; known: {', '.join(COLUMNS)}, on_hand:<LOCATION>",
                field="csv")
    if "sku" not in header:
        raise ValidationFailed("the CSV has no sku column", field="csv")
    if len(set(header)) != len(header):
        raise ValidationFailed("a column appears twice in the header", field="csv")
    return header


def _column(name: str) -> str:
    """Column names are case-blind; a location code after on_hand: keeps its case."""
    if name.lower().startswith(STOCK_PREFIX):
        return STOCK_PREFIX + name[len(STOCK_PREFIX):].strip()
    return name.lower()


def _row(line: int, cells: dict[str, str]) -> imports.ImportRow | imports.Rejected:
    given = {k: v.strip() for k, v in cells.items() if k is not None and v and v.strip()}
    sku = given.get("sku")
    stock: dict[str, Decimal] = {}
    try:
        for column in [c for c in given if c.startswith(STOCK_PREFIX)]:
            code = column[len(STOCK_PREFIX):]
            try:
                stock[code] = _count.validate_python(given.pop(column))
            except ValidationError as exc:
                msg = exc.errors(include_url=False)[0]["msg"]
                return imports.Rejected(line, sku, f"{column}: {msg}", column)
        row = ItemRow.model_validate(given)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = str(err["loc"][0]) if err["loc"] else None
        return imports.Rejected(line, sku, f"{where}: {err['msg']}" if where else err["msg"],
                                where)
    fields = row.model_dump(exclude_none=True, exclude={"sku", "default_supplier", "unit_cost"})
    return imports.ImportRow(line, row.sku, fields, row.default_supplier, stock, row.unit_cost)


def parse_csv(text: str) -> list[imports.ImportRow | imports.Rejected]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")), restkey="\0extra")
    try:
        reader.fieldnames = _header(reader.fieldnames)
        rows: list[imports.ImportRow | imports.Rejected] = []
        for cells in reader:
            if not any((v or "").strip() for k, v in cells.items() if k != "\0extra"):
                continue
            line = reader.line_num
            if "\0extra" in cells:
                rows.append(imports.Rejected(line, cells.get("sku"), "more cells than columns"))
            else:
                rows.append(_row(line, cells))
            if len(rows) > MAX_ROWS:
                raise ValidationFailed(f"more than {MAX_ROWS} rows: split the file",
                                       field="csv")
    except csv.Error as exc:
        raise ValidationFailed(f"line {reader.line_num}: {exc}", field="csv") from None
    if not rows:
        raise ValidationFailed("the CSV has a header but no rows", field="csv")
    return rows


class ImportItems(WriteRequest):
    csv: str = Field(min_length=1, max_length=5_000_000, pattern=r"^[^\x00]*$",
                     description="header: sku, then any of name, kind, uom, purchase_price, "
                                 "sales_price, reorder_point, reorder_quantity, lead_time_days, "
                                 "batch_tracked, default_supplier, unit_cost, and "
                                 "on_hand:<LOCATION> (counted opening stock)")
    skip_rejects: bool = Field(False, description="import the valid rows if some are rejected")


class RowOut(Out):
    line: int
    sku: str | None
    action: str
    detail: str
    field: str | None


class ImportReport(Out):
    created: int
    updated: int
    unchanged: int
    rejected: int
    rows: list[RowOut]


@tools.write_job("import_items", title="Import items", response=ImportReport, role=Role.admin,
                 description="Create or update items from CSV, with prices, reorder settings "
                             "and counted stock per location. The preview shows each row; "
                             "apply runs as a job.")
def import_items(op: Op, req: ImportItems) -> Done[ImportReport]:
    outcomes = imports.import_items(op, parse_csv(req.csv), skip_rejects=req.skip_rejects)
    tally = {a: sum(o.action == a for o in outcomes)
             for a in ("create", "update", "unchanged", "reject")}
    return Done(f"Import items: {tally['create']} new, {tally['update']} updated, "
                f"{tally['unchanged']} unchanged, {tally['reject']} rejected",
                ImportReport(created=tally["create"], updated=tally["update"],
                             unchanged=tally["unchanged"], rejected=tally["reject"],
                             rows=[RowOut(**o.as_dict()) for o in outcomes]))


class BatchUpdateRecipes(WriteRequest):
    component: Key = Field(description="the component to change in every recipe using it")
    replace_with: Key | None = Field(None, description="SKU that takes its place")
    scale: Quantity | None = Field(None, description="multiply its quantity by this")
    products: list[Key] | None = Field(None, max_length=5000,
                                       description="only these products' recipes")
    skip_rejects: bool = Field(False, description="change the others if some are refused")


class RecipeRowOut(Out):
    product: str
    action: str
    detail: str


class RecipeReport(Out):
    updated: int
    rejected: int
    recipes: list[RecipeRowOut]


@tools.write_job("batch_update_recipes", title="Update recipes in bulk", role=Role.admin,
                 response=RecipeReport,
                 description="Replace a component with another, or rescale it, in every "
                             "recipe using it. The preview lists each recipe; apply is a job.")
def batch_update_recipes(op: Op, req: BatchUpdateRecipes) -> Done[RecipeReport]:
    if req.replace_with is None and req.scale is None:
        raise ValidationFailed("give replace_with, scale, or both", field="replace_with")
    rows = recipe_changes.batch_update(op, req.component, req.replace_with, req.scale,
                                       req.products, skip_rejects=req.skip_rejects)
    updated = sum(r["action"] == "update" for r in rows)
    what = f"-> {req.replace_with}" if req.replace_with else ""
    what += f" x {req.scale}" if req.scale is not None else ""
    return Done(f"Change {req.component} {what.strip()} in {updated} recipes"
                f"{f', {len(rows) - updated} refused' if updated < len(rows) else ''}",
                RecipeReport(updated=updated, rejected=len(rows) - updated,
                             recipes=[RecipeRowOut(**r) for r in rows]))


class RebuildBalances(WriteRequest):
    pass


class Correction(Out):
    sku: str
    location: str
    on_hand: list[str]
    committed: list[str]


class RebuildReport(Out):
    corrections: list[Correction]


@tools.write_job("rebuild_balances", title="Rebuild balances", response=RebuildReport,
                 role=Role.admin,
                 description="Recompute every balance from the ledger and open orders; the "
                             "preview lists each correction; apply is a job.")
def rebuild_balances(op: Op, req: RebuildBalances) -> Done[RebuildReport]:
    fixes: list[dict[str, Any]] = rebuild.rebuild_balances(op)
    return Done(f"Rebuild balances: {len(fixes)} to correct",
                RebuildReport(corrections=[Correction(**f) for f in fixes]))
