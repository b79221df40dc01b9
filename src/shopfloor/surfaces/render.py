"""Render a result payload for people: text, Markdown, YAML, or the exact JSON.

The JSON form is the registry's payload untouched (the contract); the others are views
of it, so no surface ever computes something the registry did not return.

The views are for terminals and chat windows, and they show data anyone could have
stored (an item name, an adjustment reason): control characters, bidirectional
overrides and lone surrogates are shown as visible escapes (`\\x1b`, `\\u202e`), so a
stored string cannot move the cursor, retitle a terminal or reorder what is read; the
Markdown view also escapes markup. Nested results (a finished job's plan) are shown in
full: a heading per nested key, a table per list of rows, a group per row that has rows
of its own (a suggested purchase order per supplier, with its lines).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

FORMATS = ("text", "json", "yaml", "md")

# C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates,
# line/paragraph separators, and lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff]")
_SKIP = ("apply", "document")  # a preview's apply arguments and its card's document


def render(payload: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(payload, indent=2, ensure_ascii=False)
    if fmt == "yaml":
        import yaml

        return str(yaml.safe_dump(payload, sort_keys=False, allow_unicode=True)).rstrip()
    return _human(payload, md=fmt == "md").strip("\n")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every character that could drive a terminal shown as an escape."""
    if text.isascii() and text.isprintable():  # most cells: nothing to escape
        return text
    if not keep_newlines:
        text = text.replace("\n", " ").replace("\t", " ")
    return _UNSAFE.sub(_escape, text)


def _md(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _scalar(value: Any) -> bool:
    return not isinstance(value, _CONTAINERS)


_CONTAINERS = (list, dict)


def _rows(value: Any) -> bool:
    """A non-empty list of objects: shown as a table or as groups."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _cell(value: Any, md: bool = False) -> str:
    kind = type(value)
    if value is None:
        return ""
    if kind is int or kind is bool:  # nothing in a number to escape
        return str(value)
    if kind is str:  # most cells, and every key
        text = value
    elif isinstance(value, list) and all(_scalar(v) for v in value):
        text = ", ".join("" if v is None else str(v) for v in value)
    elif isinstance(value, _CONTAINERS):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    text = safe(text)
    return _md(text).replace("|", "\\|") if md else text


def _columnar(value: Any) -> bool:
    """Shown in a table cell: a scalar or a list of scalars (joined)."""
    return _scalar(value) or (isinstance(value, list) and all(_scalar(v) for v in value))


# A row that says its quantity in words (a return's line, in its order line's unit: "1 pc
# of a box of 3") is shown so, not as the figures behind the words (the JSON has them).
IN_WORDS = ("quantity_text", ("quantity", "unit", "line_quantity", "line_unit"))


def in_words(row: dict[str, Any]) -> dict[str, Any]:
    said, figures = IN_WORDS
    if not isinstance(row.get(said), str):
        return row
    return {("quantity" if k == said else k): v for k, v in row.items() if k not in figures}


def _table(rows: list[dict[str, Any]], md: bool, currency: str | None = None) -> str:
    rows = [in_words(_in_currency(r, _currency(r, currency))) for r in rows]
    cols: list[str] = []
    for row in rows:  # (a column no row fills, such as a sales line's pack, is left out)
        cols += [k for k in row if k not in cols and _columnar(row[k]) and row[k] is not None]
    names = [_cell(c, md) for c in cols]
    cells = [[_cell(r.get(c), md) for c in cols] for r in rows]
    if md:
        head = "| " + " | ".join(names) + " |\n|" + "---|" * len(cols)
        return head + "".join("\n| " + " | ".join(r) + " |" for r in cells)
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(names)]
    line = "  ".join(c.ljust(w) for c, w in zip(names, widths, strict=True))
    body = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join([line.rstrip(), "  ".join("-" * w for w in widths),
                      *(b.rstrip() for b in body)])


def _heading(path: list[str], md: bool, count: int | None = None) -> str:
    label = " / ".join(_cell(p, md) for p in path) + (f" ({count})" if count is not None else "")
    if md:
        return f"\n{'#' * min(2 + len(path), 6)} {label}"
    return f"\n{label}\n{'=' * len(label)}"


def _title(row: dict[str, Any]) -> str:
    """A group's name: its scalar fields, e.g. `supplier: Acme`."""
    parts = [f"{k}: {_cell(v)}" for k, v in row.items()
             if _columnar(v) and v is not None and v != "" and v != []]
    return ", ".join(parts) or "(row)"


# Amounts a `currency` beside them (or on the row above: an order's lines, a supplier
# item's breaks) is the currency of: the text says them in it, in its minor units or, per
# unit, to four decimals at most, as the admin does ("total: US$1,020.00", "US$0.85").
# The JSON keeps the exact figures.
PER_UNIT = frozenset({"unit_price", "unit_cost", "purchase_price", "sales_price",
                      "average_cost", "price"})
AMOUNTS = PER_UNIT | {"total", "cost", "value", "amount", "total_cost", "line_total",
                      "stock_value"}  # not landed_costs: the books'
CHANGED = AMOUNTS | {"before", "after"}


def _currency(payload: dict[str, Any], above: str | None) -> str | None:
    """The currency of a row's amounts: its own `currency`, else the row above's."""
    code = payload.get("currency")
    if isinstance(code, str) and len(code) == 3 and code.isupper():
        return code
    return above


def _in_currency(payload: dict[str, Any], code: str | None) -> dict[str, Any]:
    # a preview's change row in money says its own currency: its before and after are in it
    said = CHANGED if "field" in payload and "currency" in payload else AMOUNTS
    if code is None or not any(k in said for k in payload):
        return payload
    from shopfloor.kernel.text import money, unit_cost

    out = dict(payload)
    for k, v in payload.items():
        if k in said and isinstance(v, str) and v:
            try:
                amount = Decimal(v)
            except InvalidOperation:
                continue
            if amount.is_finite():
                out[k] = (money if k in AMOUNTS - PER_UNIT else unit_cost)(amount, code)
    return out


def _scalars(payload: dict[str, Any], md: bool, skip: tuple[str, ...] = (),
             currency: str | None = None) -> str:
    payload = _in_currency(payload, _currency(payload, currency))
    if md:
        scalars = {k: v for k, v in payload.items() if _scalar(v) and k not in skip}
        return _table([scalars], md) if scalars else ""
    # The text view of a read's fields (every MCP call without apps shows it): one pass,
    # the common cells (ASCII strings, numbers, None) made here without a call each.
    lines = []
    for k, v in payload.items():
        kind = type(v)
        if kind is str and v.isascii() and v.isprintable():
            cell = v
        elif v is None:
            cell = ""
        elif kind is int or kind is bool:
            cell = str(v)
        elif kind is list or kind is dict or isinstance(v, _CONTAINERS):
            continue
        else:
            cell = _cell(v)
        if skip and k in skip:
            continue
        key = k if type(k) is str and k.isascii() and k.isprintable() else _cell(k)
        lines.append(f"{key}: {cell}")
    return "\n".join(lines)


def _grouped(rows: list[dict[str, Any]]) -> bool:
    """Rows that have rows of their own (orders with lines) are shown one group each."""
    return any(_rows(v) for row in rows for v in row.values())


def _group(row: dict[str, Any], md: bool, path: list[str], out: list[str],
           currency: str | None) -> None:
    currency = _currency(row, currency)
    title = _cell(_title(_in_currency(row, currency)), md)
    out.append(f"\n{'#' * min(3 + len(path), 6)} {title}" if md else f"\n* {title}")
    for key, value in row.items():
        if _rows(value) and not _grouped(value):
            label = f"{_cell(key, md)} ({len(value)})"
            out.append(f"\n**{label}**\n" if md else f"{label}:")
            out.append(_table(value, md, currency))
        elif not _columnar(value):
            _nested({key: value}, md, [*path, _title(row)], out, currency)


def _nested(payload: dict[str, Any], md: bool, path: list[str], out: list[str],
            currency: str | None = None) -> None:
    """Every list and object inside `payload`, each under a heading naming where it is;
    `currency`: the one the rows above are in (their amounts' unless they name another)."""
    currency = _currency(payload, currency)
    for key, value in payload.items():
        if not isinstance(value, _CONTAINERS) or (not path and key in _SKIP):
            continue  # (a scalar: shown by `_scalars`)
        here = [*path, str(key)]
        if isinstance(value, dict):
            if not value:
                continue
            out.append(_heading(here, md))
            text = _scalars(value, md, currency=currency)
            if text:
                out.append(text)
            _nested(value, md, here, out, currency)
        elif _rows(value):
            out.append(_heading(here, md, len(value)))
            if _grouped(value):
                for row in value:
                    _group(row, md, here, out, currency)
            else:
                out.append(_table(value, md, currency))
        elif isinstance(value, list) and value:
            out.append(f"{_cell(key, md)}: " + ", ".join(_cell(v, md) for v in value))


def _human(payload: Any, md: bool) -> str:
    if not isinstance(payload, dict):
        if isinstance(payload, list) and _rows(payload):
            return _table(payload, md)
        return _cell(payload, md)
    out: list[str] = []
    heading = "## " if md else ""
    summary = _cell(payload.get("summary"), md)
    if payload.get("preview"):
        out.append(f"{heading}PREVIEW: {summary}")
    elif payload.get("applied"):
        tag = "REPLAYED" if payload.get("replayed") else "APPLIED"
        out.append(f"{heading}{tag}: {summary} "
                   f"(operation {_cell(payload.get('operation_id'), md)})")
    elif payload.get("applied") is False:  # a person said no to the apply
        out.append(f"{heading}NOT APPLIED: {summary}")
    if not payload.get("preview"):
        text = _scalars(payload, md, skip=("preview", "applied", "summary", "replayed",
                                           "preview_token"))
        if text:
            out.append(text)
    _nested(payload, md, [], out)
    if payload.get("preview"):
        if payload.get("preview_token"):
            out.append("\nTo apply: repeat the call with preview=false and "
                       f"preview_token={_cell(payload['preview_token'], md)}")
        else:
            out.append("\nBlocked: a warning above prevents applying this.")
    return "\n".join(out)
