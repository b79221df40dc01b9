"""A form for any tool, from its JSON Schema alone, and the arguments back from the form.

No tool has code here: a tool another engineer adds tomorrow gets a form from the same
schema every surface serves. The schema decides the widget (enum: a pick list; date: a
date field; boolean: a check box; an array of objects: a line table; numbers as text with
a decimal keyboard, since quantities are exact decimals). A field's name decides only
which suggestions it gets: items for a SKU, locations, suppliers, customers.

Field names in the form are `name` for a top-level argument and `name.N.column` for a line
table's cell, so a query string can pre-fill any form (`?number=PO-1&lines.0.sku=M1`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request

from shopfloor.kernel.digits import whole
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.registry.tool import CONTROL_FIELDS
from shopfloor.surfaces.admin.display import decimal_text, label

PICKS = {"sku": "items", "item": "items", "product": "items", "component": "items",
         "only": "items", "skus": "items",
         "location": "locations", "from_location": "locations", "to_location": "locations",
         "supplier": "suppliers", "default_supplier": "suppliers", "customer": "customers"}
MAX_LINES = 200
# Where a pick list's suggestions come from: (tool, result list, value, text shown).
PICK_SOURCES = {"items": ("search_items", "items", "sku", "name"),
                "locations": ("list_locations", "locations", "code", "name"),
                "suppliers": ("list_suppliers", "suppliers", "name", "email"),
                "customers": ("list_customers", "customers", "name", "email")}
PICK_LIMIT = 20
PAGE = 25  # rows on one page of a listed page


@dataclass
class Field:
    name: str
    label: str
    kind: str  # text, decimal, integer, date, datetime, enum, bool, lines, list, json,
    #            textarea, password, file (its bytes as base64, read by the browser)
    required: bool = False
    description: str = ""
    options: list[str] = field(default_factory=list)
    pick: str | None = None
    default: Any = None
    columns: list[Field] = field(default_factory=list)


def _types(node: Mapping[str, Any]) -> list[str]:
    t = node.get("type")
    if isinstance(t, list):
        return [x for x in t if x != "null"]
    if isinstance(t, str):
        return [t]
    for key in ("anyOf", "oneOf"):
        if key in node:
            out: list[str] = []
            for sub in node[key]:
                out += _types(sub)
            return [x for x in out if x != "null"]
    return []


def _resolve(node: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found: Mapping[str, Any] = defs.get(ref.split("/")[-1], {})
        return found
    for key in ("anyOf", "oneOf"):
        for sub in node.get(key, []):
            if isinstance(sub, dict) and "$ref" in sub:
                return _resolve(sub, defs)
    return node


def make_field(name: str, node: Mapping[str, Any], required: bool,
               defs: Mapping[str, Any]) -> Field:
    node = _resolve(node, defs)
    types = _types(node)
    f = Field(name=name, label=label(name), kind="text", required=required,
              description=str(node.get("description", "")), default=node.get("default"),
              pick=PICKS.get(name))
    if node.get("contentEncoding") == "base64":  # a file's bytes: picked, not typed
        f.kind = "file"
        f.options = [t.strip() for t in str(node.get("contentMediaType", "")).split(",")
                     if t.strip()]
    elif "enum" in node:
        f.kind, f.options = "enum", [str(v) for v in node["enum"] if v is not None]
    elif types == ["boolean"]:
        f.kind = "bool"
    elif types == ["integer"]:
        f.kind = "integer"
    elif "number" in types:
        f.kind = "decimal"
    elif node.get("format") == "date":
        f.kind = "date"
    elif node.get("format") == "date-time":
        f.kind = "datetime"
    elif node.get("format") == "password":
        f.kind = "password"
    elif types == ["array"]:
        items = _resolve(node.get("items", {}), defs)
        if _types(items) == ["object"] and isinstance(items.get("properties"), dict):
            f.kind = "lines"
            req = set(items.get("required", []))
            f.columns = [make_field(k, v, k in req, defs)
                         for k, v in items["properties"].items()]
        elif _types(items) in (["string"], ["integer"]):
            f.kind = "list"
        else:
            f.kind = "json"
    elif types == ["object"] or not types:
        f.kind = "json"
    elif types == ["string"] and int(node.get("maxLength", 0) or 0) > 200:
        f.kind = "textarea"
    return f


def form_fields(schema: Mapping[str, Any]) -> list[Field]:
    defs = schema.get("$defs", {})
    req = set(schema.get("required", []))
    return [make_field(k, v, k in req, defs) for k, v in schema.get("properties", {}).items()
            if k not in CONTROL_FIELDS]


def picks_of(fields: list[Field]) -> list[str]:
    """The kinds of record a form's fields name (each gets one shared pick list)."""
    wanted = {f.pick for f in fields if f.pick} | {
        c.pick for f in fields for c in f.columns if c.pick}
    return sorted(p for p in wanted if p)


def _scalar(f: Field, raw: str, where: str) -> Any:
    text = raw.strip()
    if f.kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValidationFailed(f"{where}: {text!r} is not a whole number",
                                   field=where) from None
    if f.kind == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationFailed(f"{where}: not valid JSON ({exc.msg})", field=where) from None
    if f.kind == "datetime" and len(text) == 16:
        return text + ":00"
    return raw if f.kind in ("textarea", "password") else text


def parse(fields: list[Field], form: Mapping[str, list[str]]) -> dict[str, Any]:
    """The arguments a submitted form means: blank means absent (the tool's default)."""
    args: dict[str, Any] = {}
    for f in fields:
        if f.kind == "bool":
            values = form.get(f.name, [])
            if values:
                args[f.name] = values[-1] in ("on", "true", "1", "yes")
            continue
        if f.kind == "lines":
            rows = _lines(f, form)
            if rows:
                args[f.name] = rows
            continue
        raw = (form.get(f.name) or [""])[-1]
        if f.kind == "list":  # check boxes of one name (the MRP page's items) add up
            raw = "\n".join(form.get(f.name) or [])
        if not raw.strip():
            continue
        if f.kind == "list":
            col = Field(f.name, f.label, "integer" if f.default == "integer" else "text")
            args[f.name] = [_scalar(col, p, f.name) for p in _parts(raw)]
        else:
            args[f.name] = _scalar(f, raw, f.name)
    return args


def _parts(raw: str) -> list[str]:
    """A list typed as text: one item a line or between commas."""
    return [p.strip() for p in raw.replace(",", "\n").splitlines() if p.strip()]


def _lines(f: Field, form: Mapping[str, list[str]]) -> list[dict[str, Any]]:
    indexes = sorted({i for k in form
                      if k.startswith(f.name + ".") and k.count(".") == 2
                      and (i := whole(k.split(".")[1])) is not None})
    rows: list[dict[str, Any]] = []
    for i in indexes[:MAX_LINES * 5]:
        row: dict[str, Any] = {}
        for col in f.columns:
            raw = (form.get(f"{f.name}.{i}.{col.name}") or [""])[-1]
            if col.kind == "bool":
                if raw:
                    row[col.name] = raw in ("on", "true", "1", "yes")
            elif col.kind == "list" and raw.strip():  # a cell's list: one per comma
                where = f"{f.name}[{len(rows)}].{col.name}"
                row[col.name] = [_scalar(Field(col.name, col.label, "text"), p, where)
                                 for p in _parts(raw)]
            elif raw.strip():
                row[col.name] = _scalar(col, raw, f"{f.name}[{len(rows)}].{col.name}")
        if row:
            rows.append(row)
    return rows


def prefill(fields: list[Field], query: Mapping[str, list[str]]) -> dict[str, Any]:
    """Values to show in a fresh form: the query string's, as text (lines as rows)."""
    values: dict[str, Any] = {}
    for f in fields:
        if f.kind == "lines":
            rows: dict[int, dict[str, str]] = {}
            for key, v in query.items():
                parts = key.split(".")
                if (len(parts) == 3 and parts[0] == f.name
                        and (i := whole(parts[1])) is not None):
                    rows.setdefault(i, {})[parts[2]] = v[-1]
            values[f.name] = [rows[i] for i in sorted(rows)][:MAX_LINES]
        elif f.name in query:
            values[f.name] = "\n".join(query[f.name]) if f.kind == "list" else query[f.name][-1]
        elif f.default is not None and f.kind not in ("json",):
            values[f.name] = f.default if f.kind == "bool" else str(f.default)
    return values


def as_text(value: Any) -> str:
    """An argument back into a form field's text (after a preview, the form keeps it)."""
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def values_of(fields: list[Field], args: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for f in fields:
        v = args.get(f.name)
        if f.kind == "lines":
            lists = {c.name for c in f.columns if c.kind == "list"}
            values[f.name] = [{k: ", ".join(str(y) for y in x)
                               if k in lists and isinstance(x, list) else as_text(x)
                               for k, x in row.items()}
                              for row in (v or []) if isinstance(row, dict)]
        elif f.kind == "list" and isinstance(v, list):
            values[f.name] = "\n".join(str(x) for x in v)
        elif f.kind == "bool":
            values[f.name] = bool(v)
        elif v is not None:
            values[f.name] = as_text(v)
    return values


def prefilled(tool: str, args: dict[str, Any]) -> str:
    """A page's action is a link to the tool's own form, filled in (the inverse of
    `prefill`), so that no action has a write path of its own."""
    flat: dict[str, str] = {}
    for key, value in args.items():
        if isinstance(value, list):
            for i, row in enumerate(value):
                for col, v in row.items():
                    flat[f"{key}.{i}.{col}"] = str(v)
        elif value is not None:
            flat[key] = str(value)
    return f"/tools/{tool}" + ("?" + urlencode(flat) if flat else "")


def query_with(request: Request, **changes: Any) -> str:
    """This page's URL with some query parameters changed (paging, filters); a list
    value repeats its parameter."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k not in changes]
    for k, v in changes.items():
        for one in (v if isinstance(v, list) else [v]):
            if one not in (None, ""):
                params.append((k, str(one)))
    return request.url.path + ("?" + urlencode(params) if params else "")


def listing(request: Request, *keys: str) -> dict[str, Any]:
    """A listed page's arguments: one page of rows, filtered by the query's `keys` that
    are given, from the `cursor` on."""
    q = request.query_params
    return {"limit": PAGE, **{k: q[k] for k in (*keys, "cursor") if q.get(k)}}


def pages(request: Request, next_cursor: Any) -> dict[str, Any]:
    """Links to the first, previous and next page of a cursor-paged list.

    A cursor only leads forward, so the cursors that led here travel in the URL
    (`back`, oldest first): Previous pops one, Next pushes this page's. Back, reload
    and a shared link all land on the same page."""
    cursor = request.query_params.get("cursor") or None
    back = request.query_params.getlist("back")
    here = [*back, cursor] if cursor else []
    return {
        "next_url": query_with(request, cursor=next_cursor, back=here) if next_cursor
        else None,
        "prev_url": query_with(request, cursor=back[-1] if back else None, back=back[:-1])
        if cursor else None,
        "first_url": query_with(request, cursor=None, back=None) if back else None,
        "page_no": len(here) + 1}


# -- a form that starts from the record ---------------------------------------------
KEYS = ("sku", "number", "code", "id")
# Where a record says a form's field by another name (an order's partner is the
# supplier or the customer; a purchase order's due date is its expected date).
ALIASES = {"supplier": "partner", "customer": "partner", "expected_date": "due_date"}
ORIGINAL = "_original"


def record_tool(tool: str, names: set[str]) -> str | None:
    """The read that loads what a modify or update tool changes (`modify_item` ->
    `get_item`, `update_recipe` -> `get_recipe`), when the catalogue has one."""
    for verb in ("modify_", "update_"):
        if tool.startswith(verb) and "get_" + tool[len(verb):] in names:
            return "get_" + tool[len(verb):]
    return None


def key_of(fields: list[Field], query: Mapping[str, list[str]]) -> dict[str, Any] | None:
    """The record a form's query names (`?sku=GLUE`, `?number=PO-10`), if it names one."""
    names = {f.name for f in fields}
    for key in KEYS:
        if key in names and (query.get(key) or [""])[-1].strip():
            raw = query[key][-1].strip()
            number = whole(raw) if key == "id" else None
            return {key: raw if number is None else number}
    return None


def _cell(f: Field, value: Any) -> Any:
    """A record's value as the form's field holds it (decimals without trailing zeros)."""
    if value is None or f.kind in ("bool", "json"):
        return value
    if f.kind == "decimal":
        return decimal_text(value) or str(value)
    if f.kind == "date" and isinstance(value, str):
        return value[:10]
    return value


def from_record(fields: list[Field], record: Mapping[str, Any],
                key: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments that would leave the record as it is: every field the record
    shows, each line with every column it has."""
    args: dict[str, Any] = dict(key)
    for f in fields:
        if f.name in key or f.name in KEYS:
            continue
        name = f.name if f.name in record else ALIASES.get(f.name, "")
        if name not in record:
            continue
        value = record[name]
        if f.kind == "lines" and isinstance(value, list):
            cols = {c.name: c for c in f.columns}
            args[f.name] = [{k: _cell(cols[k], v) for k, v in row.items()
                             if k in cols and v is not None}
                            for row in value if isinstance(row, dict)]
        elif f.kind == "enum" and value is not None and str(value) not in f.options:
            continue  # a status the form cannot set (a draft is opened, not chosen)
        elif value is not None:
            args[f.name] = _cell(f, value)
    return args


def _same(f: Field, a: Any, b: Any) -> bool:
    if f.kind == "lines":
        if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
            return bool(a == b)
        cols = {c.name: c for c in f.columns}
        return all(set(x) == set(y) and all(_same(cols[k], x[k], y[k]) for k in x if k in cols)
                   for x, y in zip(a, b, strict=True))
    if f.kind in ("decimal", "integer"):
        da, db = decimal_text(a), decimal_text(b)
        if da is not None and db is not None:
            return da == db
    return bool(a == b) or (a is not None and b is not None and str(a) == str(b))


def changed(fields: list[Field], args: Mapping[str, Any],
            original: Mapping[str, Any] | None) -> dict[str, Any]:
    """Only what the person changed, against the record the form started from: a field
    left as it was is not sent (so it cannot change), a changed line table is sent whole
    (editing one of ten lines keeps the other nine), a cleared field is sent as its
    `clear_` flag where the tool has one. A field the tool requires is sent as it stands
    (a routing's operations): without it the tool cannot run, and unchanged it changes
    nothing. Without an original, everything typed is sent."""
    if original is None:
        return dict(args)
    names = {f.name for f in fields}
    out = {k: v for k, v in args.items() if k in KEYS}
    for f in fields:
        if f.name in KEYS or f.name.startswith("clear_"):
            continue
        new, old = args.get(f.name), original.get(f.name)
        if f.name not in original:
            if new is not None and not (f.kind == "bool" and new is False):
                out[f.name] = new
        elif new is None:
            if f"clear_{f.name}" in names:
                out[f"clear_{f.name}"] = True
        elif f.required or not _same(f, new, old):
            out[f.name] = new
    for f in fields:  # a clear flag the person ticked themselves
        if f.name.startswith("clear_") and args.get(f.name) is True:
            out[f.name] = True
    return out


def original_of(form: Mapping[str, list[str]]) -> dict[str, Any] | None:
    raw = (form.get(ORIGINAL) or [""])[-1]
    if not raw:
        return None
    try:
        found = json.loads(raw)
    except json.JSONDecodeError:
        raise ValidationFailed("the form's starting values are damaged; reload the page",
                               field=ORIGINAL) from None
    return found if isinstance(found, dict) else None
