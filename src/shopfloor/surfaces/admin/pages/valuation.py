"""Stock valuation: what the stock is worth now, at a day's end, or over a period with its
opening, flows and closing; and the same figures as a CSV file an accountant takes away.

Both read the valuation tool as the signed-in actor (a viewer may), the page one page of
rows at a time, the file every row (followed page by page), each with the totals. The
page's first page also draws where the value sits, by item kind and by location, as bar
charts (ui/charts.py) of the tool's breakdown: totals over every row, not the page's."""

from __future__ import annotations

import csv
import io
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel.statuses import label
from shopfloor.kernel.text import cell
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import pages
from shopfloor.ui.charts import bars

TOOL = "get_stock_valuation"
FILTERS = ("sku", "location", "kind", "date", "start")
PERIOD = ("opening", "received", "shipped", "consumed", "produced", "transferred", "adjusted",
          "revalued")


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/valuation", valuation),
            admin.page("/valuation.csv", export)]


def _filters(request: Request) -> dict[str, str]:
    q = request.query_params
    return {k: q[k] for k in FILTERS if q.get(k)}


def _amounts(period: bool) -> list[str]:
    """The money columns in the order they add up: opening + each flow = value; the
    variances (value that left the books) after it."""
    return [*PERIOD, "value", "variances"] if period else ["value"]


async def valuation(a: Admin, request: Request, actor: Actor) -> Response:
    filters = _filters(request)
    cursor = request.query_params.get("cursor")
    result = await a.call(actor, TOOL, {**filters, **({"cursor": cursor} if cursor else
                                                      {"breakdown": True})})
    period = "start" in filters
    rows = [{**r, **(r.get("period") or {})} for r in result.get("rows", [])]
    return a.render(request, "valuation.html", actor, q=request.query_params, rows=rows,
                    total=result.get("total", {}), amounts=_amounts(period), period=period,
                    charts=_charts(a, request, result),
                    csv_url="/valuation.csv" + ("?" + urlencode(filters) if filters else ""),
                    locations=(await a.read(actor, "list_locations", {})).get("locations", []),
                    **pages(request, result.get("next_cursor")))


def _charts(a: Admin, request: Request, result: dict[str, Any]) -> list[tuple[str, Any]]:
    """(caption, chart) of the value by kind and by location; none on later pages, or
    with nothing valued."""
    fmt = a.formats(request)
    kinds, places = result.get("by_kind") or {}, result.get("by_location") or {}
    wanted = (("value-by-kind", "By item kind", [(label(k), v) for k, v in kinds.items()]),
              ("value-by-location", "By location", list(places.items())))
    return [(caption, bars(key, f"Stock value {caption.lower()}", figures, fmt))
            for key, caption, figures in wanted if figures]


async def export(a: Admin, request: Request, actor: Actor) -> Response:
    filters = _filters(request)
    args: dict[str, Any] = dict(filters)
    result = await a.call(actor, TOOL, args)
    rows = list(result["rows"])
    while result.get("next_cursor"):
        result = await a.call(actor, TOOL, {**args, "cursor": result["next_cursor"]})
        rows += result["rows"]
    amounts = _amounts("start" in filters)
    out = io.StringIO()
    # The header row first (a spreadsheet or csv.DictReader takes the first line for it);
    # what the sheet covers is in its file name. Figures exact, as the tool gives them; the
    # books' currency in a column of its own, so no cell mixes a sign into a number.
    books = a.settings.currency
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(["sku", "name", "location", "lot", "quantity", *amounts, "currency"])
    for r in rows:
        figures = {**r, **(r.get("period") or {})}
        w.writerow([cell(r["sku"]), cell(r["name"]), cell(r["location"]), "",
                    r["quantity"], *(figures.get(k, "") for k in amounts), books])
        for lot, value in r.get("lots", {}).items():
            w.writerow([cell(r["sku"]), cell(r["name"]), cell(r["location"]), cell(lot),
                        "", *(value if k == "value" else "" for k in amounts), books])
    w.writerow(["total", "", "", "", "", *(result["total"].get(k, "") for k in amounts),
                books])
    name = "stock-valuation-" + (filters.get("date") or "now") + (
        f"-from-{filters['start']}" if "start" in filters else "") + ".csv"
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff"})
