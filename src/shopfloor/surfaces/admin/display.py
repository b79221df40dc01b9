"""How the admin shows a value a tool returned: labels, numbers, money, dates, statuses.

Every value goes through `show`, which escapes it (markupsafe) and marks what kind it is.
The words themselves come from `ui.formats` (Babel, in the reader's Accept-Language
locale): money with its currency's decimals, quantities without trailing zeros, dates
and times in the deployment's zone. The raw figure rides along in `data-value` for a
script or a test; nothing reformats it in the browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple
from urllib.parse import quote

from markupsafe import Markup, escape

from shopfloor.kernel.statuses import label as status_label
from shopfloor.kernel.text import fmt
from shopfloor.ui.formats import Formats

MONEY = frozenset({"unit_price", "unit_cost", "purchase_price", "sales_price", "total", "cost",
                   "average_cost", "value", "amount", "price", "total_cost", "line_total",
                   "stock_value"})
UNIT_COSTS = frozenset({"unit_cost", "average_cost"})  # per unit: up to four decimals
TEXT = frozenset({"sku", "number", "name", "code", "reason", "notes", "email", "phone",
                  "operation_id", "job_id", "idempotency_key", "actor", "lot", "batch",
                  "serial", "partner", "location", "supplier", "customer", "default_supplier",
                  "query", "message", "summary", "kind", "uom", "id", "cursor",
                  "next_cursor"})
LABELS = {"uom": "Unit", "sku": "SKU", "partner": "Partner", "due_date": "Due",
          "done_quantity": "Done", "created_at": "Created", "lead_time_days": "Lead time (days)",
          "batch_tracked": "Lot tracked", "on_hand": "On hand", "on_order": "On order",
          "id": "ID", "operation_id": "Operation", "job_id": "Job", "qty": "Quantity",
          "expected_date": "Expected", "quantity_delta": "Change", "counted_quantity": "Counted",
          "suggested_quantity": "Suggested", "completed_quantity": "Completed",
          "returned_quantity": "Returned", "default_supplier": "Supplier",
          "reorder_point": "Reorder point", "reorder_quantity": "Reorder quantity",
          "average_cost": "Average cost", "updated_at": "Updated", "finished_at": "Finished",
          "started_at": "Started", "heartbeat_at": "Heartbeat"}
# Where a document a movement names has its page (by the movement's document_type).
DOCUMENTS = {"purchase_order": "/purchase-orders/", "sales_order": "/sales-orders/",
             "manufacturing_order": "/manufacturing-orders/"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
_ISO = re.compile(r"^[A-Z]{3}$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
NONE = Markup('<span class="muted">—</span>')


def label(key: str) -> str:
    if key in LABELS:
        return LABELS[key]
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def words(value: str) -> str:
    """`partially_received` -> `Partially received`: no snake_case reaches a person."""
    return status_label(str(value))


def decimal_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        return fmt(Decimal(str(value)))
    if isinstance(value, str) and _NUMBER.match(value):
        try:
            return fmt(Decimal(value))
        except InvalidOperation:
            return None
    return None


def _figure(value: Any, css: str, shown: Callable[[str], str]) -> Markup:
    """A decimal in the reader's format, its exact value kept in `data-value` for the
    page's scripts; anything that is not a number, escaped as it is."""
    text = decimal_text(value)
    if text is None:
        return NONE if value is None else Markup(escape(value))
    return Markup('<span class="{0}" data-value="{1}">{2}</span>').format(css, text, shown(text))


def money(value: Any, formats: Formats, currency: str | None = None) -> Markup:
    return _figure(value, "money", lambda text: formats.money(text, currency))


def unit_cost(value: Any, formats: Formats, currency: str | None = None) -> Markup:
    return _figure(value, "money", lambda text: formats.unit_cost(text, currency))


def number(value: Any, formats: Formats, unit: str | None = None) -> Markup:
    out = _figure(value, "num", formats.quantity)
    if unit and decimal_text(value) is not None:
        out += Markup(' <span class="unit">{0}</span>').format(unit)
    return out


def when(value: str, formats: Formats) -> Markup:
    if _DATE.match(value):
        return Markup('<time class="date" datetime="{0}" data-done="1">{1}</time>').format(
            value, formats.date(value))
    return Markup('<time class="datetime" datetime="{0}" data-done="1">{1}</time>').format(
        value, formats.datetime(value))


class Shower:
    """Shows values for one request: knows the currency, the tools' titles and where
    records live (so a SKU, an order number or a job id becomes a link)."""

    def __init__(self, formats: Formats, titles: Mapping[str, str],
                 links: Mapping[str, str] | None = None) -> None:
        self.formats = formats
        self.currency = formats.currency
        self.titles = titles
        self.links = dict(links or {})

    def link(self, key: str, value: Any) -> str | None:
        base = self.links.get(key)
        if base is None or value in (None, ""):
            return None
        return base + quote(str(value), safe="")

    def show(self, key: str, value: Any, row: Mapping[str, Any] | None = None) -> Markup:
        if value is None or value == "":
            return NONE
        if isinstance(value, bool):
            return Markup("Yes" if value else "No")
        if isinstance(value, Span):
            return Markup('<time class="range" datetime="{0}/{1}" data-done="1">{2}</time>'
                          ).format(
                value.start, value.end, self.formats.range(value.start, value.end))
        if isinstance(value, list):
            return self.listing(key, value)
        if isinstance(value, dict):
            return self.fields(value)
        if key in ("tool", "kind") and isinstance(value, str) and value in self.titles:
            return Markup(escape(self.titles[value]))
        if key == "tool" and isinstance(value, str):
            return Markup(escape(self.titles.get(value, words(value))))
        if key == "document_type" and isinstance(value, str):
            return Markup(escape(words(value)))
        href = self.link(key, value)
        if key == "document_number" and row and row.get("document_type") in DOCUMENTS:
            href = DOCUMENTS[str(row["document_type"])] + quote(str(value), safe="")
        if href is not None and key == "operation_id":  # the id a link away, never read
            return Markup('<a href="{0}" title="{1}">Details</a>').format(href, value)
        if href is not None:
            return Markup('<a href="{0}">{1}</a>').format(href, value)
        if key == "status" or key == "action" or key.endswith("_status"):
            slug = re.sub(r"[^a-z0-9]+", "-", str(value).lower())
            return Markup('<span class="badge s-{0}">{1}</span>').format(slug, words(value))
        if key in UNIT_COSTS:
            return unit_cost(value, self.formats, currency_of(row))
        if key in MONEY or key.endswith("_price") or key.endswith("_cost"):
            return money(value, self.formats, currency_of(row))
        if key not in TEXT and not isinstance(value, str | int | float | Decimal):
            return Markup(escape(value))
        if key not in TEXT and decimal_text(value) is not None:
            # a quantity in its row's unit: an item's, or a line's own (a purchase unit)
            unit = (row.get("uom") or row.get("unit")) if row and "quantity" in key else None
            return number(value, self.formats, unit if isinstance(unit, str) else None)
        if isinstance(value, str) and (_DATE.match(value) or _DATETIME.match(value)):
            return when(value, self.formats)
        if key == "kind":
            return Markup(escape(words(value)))
        return Markup(escape(value))

    def listing(self, key: str, values: list[Any]) -> Markup:
        if not values:
            return NONE
        if all(isinstance(v, dict) for v in values):
            return self.table(values, compact=True)
        return Markup(", ").join(self.show(key, v) for v in values)

    def money(self, value: Any, currency: str | None = None) -> Markup:
        """Money in a currency of its own (a list of orders, each in its partner's)."""
        return money(value, self.formats, currency)

    def fields(self, record: Mapping[str, Any], skip: Iterable[str] = (),
               names: Mapping[str, str] | None = None, *, amounts: bool = False) -> Markup:
        """A record as a definition list (scalars only; lists are shown as tables apart);
        `names` relabels a field where the page knows better (a PO's partner: Supplier);
        `amounts`: every figure is money (a planned cost's materials, operations, total)."""
        skipped = set(skip)
        names = names or {}
        record = ranged(record)
        items = [Markup('<div><dt>{0}</dt><dd>{1}</dd></div>').format(
            names.get(k, label(k)),
            money(v, self.formats, currency_of(record)) if amounts and decimal_text(v)
            else self.show(k, v, record)) for k, v in record.items()
            if k not in skipped and not isinstance(v, list)]
        return Markup('<dl class="fields">{0}</dl>').format(Markup("").join(items))

    def columns(self, rows: list[Mapping[str, Any]]) -> list[str]:
        cols: list[str] = []
        for r in rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
        return cols

    def table(self, rows: list[Mapping[str, Any]], columns: list[str] | None = None, *,
              compact: bool = False, caption: str | None = None,
              extra: Callable[[Mapping[str, Any]], Markup] | None = None,
              names: Mapping[str, str] | None = None) -> Markup:
        rows = [ranged(r) for r in rows]
        cols = [RANGES.get(c, c) for c in (columns or self.columns(rows))
                if c not in RANGE_ENDS]
        cols = list(dict.fromkeys(cols))
        if compact:
            cols = [c for c in cols if c != "id"]
        titles = {c: (names or {}).get(c, label(c)) for c in cols}
        head = Markup("").join(
            Markup('<th scope="col"{1}>{0}</th>').format(titles[c], _num_class(rows, c))
            for c in cols)
        if extra is not None:
            head += Markup('<th scope="col"><span class="sr-only">Actions</span></th>')
        body = Markup("")
        for r in rows:
            cells = Markup("").join(
                Markup('<td data-label="{0}"{2}>{1}</td>').format(
                    titles[c], self._cell(c, r.get(c), r), _num_class(rows, c)) for c in cols)
            if extra is not None:
                cells += Markup('<td class="row-actions">{0}</td>').format(extra(r))
            body += Markup("<tr>{0}</tr>").format(cells)
        cap = Markup("<caption>{0}</caption>").format(caption) if caption else Markup("")
        return Markup('<div class="table-wrap"><table class="data{3}">{2}<thead><tr>{0}</tr>'
                      '</thead><tbody>{1}</tbody></table></div>').format(
            head, body, cap, " compact" if compact else "")

    def _cell(self, key: str, value: Any, row: Mapping[str, Any]) -> Markup:
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            if len(value) <= 20:  # a plan's lines, the needs an order covers: shown in place
                return self.table(value, compact=True)
            return Markup(escape(f"{len(value)} lines"))
        if isinstance(value, dict):  # its words and figures as everywhere else: a cover's
            # kind reads "Safety stock", its date "29 Nov 2026", never the codes
            return Markup(", ").join(
                Markup("{0}: {1}").format(label(k), self.show(k, v, value))
                for k, v in value.items() if v not in (None, ""))
        return self.show(key, value, row)


class Span(NamedTuple):
    """A start and a finish shown as one range ("Fri 4 Dec, 10:23-11:55")."""

    start: str
    end: str


RANGES = {"planned_start": "planned"}  # a pair's start field -> the one field shown
RANGE_ENDS = {"planned_finish": "planned_start"}


def ranged(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A record whose planned start and finish are both times, with the two as one range:
    a person reads when, not two timestamps."""
    out: dict[str, Any] | None = None
    for end, start in RANGE_ENDS.items():
        a, b = record.get(start), record.get(end)
        if isinstance(a, str) and isinstance(b, str) and _DATETIME.match(a) \
                and _DATETIME.match(b):
            out = out if out is not None else dict(record)
            out = {RANGES[start] if k == start else k: Span(a, b) if k == start else v
                   for k, v in out.items() if k != end}
    return out if out is not None else record


def currency_of(row: Mapping[str, Any] | None) -> str | None:
    """The currency a record's amounts are in, when it says (a `currency` beside them: a
    dollar order's total); None leaves the books' own."""
    code = row.get("currency") if row else None
    return code if isinstance(code, str) and _ISO.match(code) else None


def _num_class(rows: list[Mapping[str, Any]], key: str) -> Markup:
    if key in TEXT:
        return Markup("")
    sample = next((r.get(key) for r in rows if r.get(key) not in (None, "")), None)
    if sample is not None and not isinstance(sample, bool) and decimal_text(sample) is not None:
        return Markup(' class="n"')
    return Markup("")
