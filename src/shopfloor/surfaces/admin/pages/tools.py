"""Every tool as a page: its form generated from its JSON Schema (`forms`), a read run in
place, and a write previewed first. The preview is drawn by the cards' own renderer
(ui/render.js), and Confirm sends the form as it now stands with the preview's token, so
a form edited after its preview cannot apply the old one (the token binds the arguments).
A job tool starts its job and goes to the job's page."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.tool import Tool
from shopfloor.surfaces.admin import forms
from shopfloor.surfaces.admin.core import Admin, form_of


def routes(admin: Admin) -> list[BaseRoute]:
    return [
        admin.page("/tools", tool_list, methods=["GET"]),
        admin.page("/tools/{name}", tool_get, methods=["GET"]),
        admin.page("/tools/{name}/preview", preview, write=True, methods=["POST"]),
        admin.page("/tools/{name}/apply", apply, write=True, methods=["POST"]),
        admin.page("/tools/{name}/start", start, write=True, methods=["POST"]),
    ]


async def tool_list(a: Admin, request: Request, actor: Actor) -> Response:
    """Grouped by toolset, in the catalogue's order (the areas MCP hosts choose by)."""
    groups: dict[str, list[Tool]] = {}
    for t in a.tools_for(actor):
        groups.setdefault(t.facts.toolset, []).append(t)
    return a.render(request, "tools.html", actor, groups=list(groups.items()))


def tool_of(a: Admin, name: str) -> Tool:
    tool = a.registry.get(name)  # not_found for an unknown name
    if tool.app_only:
        raise ShopfloorError(f"{name} is for cards only")
    return tool


async def tool_page(a: Admin, request: Request, actor: Actor, *,
                    args: dict[str, Any] | None = None, outcome: dict[str, Any] | None = None,
                    status: int = 200, original: dict[str, Any] | None = None) -> Response:
    tool = tool_of(a, request.path_params["name"])
    fields = forms.form_fields(tool.input_schema)
    query = parse_qs(request.url.query, keep_blank_values=False)
    if args is None and original is None:
        original = await from_record(a, actor, tool, fields, query)
    if args is not None:
        values = forms.values_of(fields, args)
    elif original is not None:
        given = forms.prefill(fields, query)
        values = {**forms.values_of(fields, original),
                  **{k: v for k, v in given.items() if k in query or (v and isinstance(v, list))}}
    else:
        values = forms.prefill(fields, query)
    result = None
    if args is None and not tool.facts.writes and not tool.facts.job and "run" in query:
        try:
            run_args = forms.parse(fields, query)
            result = await a.call(actor, tool.name, run_args)
            nxt = result.get("next_cursor")
            outcome = {"kind": "read", "result": result,
                       "scalars": {k: v for k, v in result.items()
                                   if not isinstance(v, list) and k != "next_cursor"},
                       "lists": [(k, v) for k, v in result.items() if isinstance(v, list)],
                       **forms.pages(request, nxt)}
        except ShopfloorError as exc:
            outcome = {"kind": "error", "error": exc}
    ctx: dict[str, Any] = {
        "tool": tool, "fields": fields, "values": values, "outcome": outcome,
        "original": original, "picks": forms.picks_of(fields),
        "allowed": actor.may(tool.facts.role)}
    if request.headers.get("hx-request") and request.method == "POST":
        return a.render(request, "_outcome.html", actor, status=status, **ctx)
    return a.render(request, "tool.html", actor, status=status, **ctx)


async def tool_get(a: Admin, request: Request, actor: Actor) -> Response:
    return await tool_page(a, request, actor)


async def from_record(a: Admin, actor: Actor, tool: Tool, fields: list[forms.Field],
                      query: dict[str, list[str]]) -> dict[str, Any] | None:
    """A modify form named by its record's key starts from the record's values."""
    reader = forms.record_tool(tool.name, {t.name for t in a.registry.tools()})
    key = forms.key_of(fields, query)
    if reader is None or key is None or not tool.facts.writes:
        return None
    return forms.from_record(fields, await a.call(actor, reader, key), key)


async def preview(a: Admin, request: Request, actor: Actor) -> Response:
    tool = tool_of(a, request.path_params["name"])
    fields = forms.form_fields(tool.input_schema)
    form = await form_of(request)
    original = None
    try:
        original = forms.original_of(form)
        args = forms.parse(fields, form)
        sent = forms.changed(fields, args, original)
        payload = await a.call(actor, tool.name, {**sent, "preview": True})
        outcome = {"kind": "preview", "payload": payload,
                   "names": await names(a, actor, payload)}
    except ShopfloorError as exc:
        return await tool_page(a, request, actor, args=_safe_args(fields, form),
                               outcome={"kind": "error", "error": exc}, status=_status(exc),
                               original=original)
    return await tool_page(a, request, actor, args=args, outcome=outcome, original=original)


async def apply(a: Admin, request: Request, actor: Actor) -> Response:
    tool = tool_of(a, request.path_params["name"])
    fields = forms.form_fields(tool.input_schema)
    form = await form_of(request)
    token = form.get("preview_token", [""])[-1]
    key = form.get("idempotency_key", [""])[-1] or f"admin-{secrets.token_hex(16)}"
    args: dict[str, Any] = {}
    original = None
    try:
        original = forms.original_of(form)
        args = forms.parse(fields, form)
        if not token:
            raise ShopfloorError("preview first: Confirm applies a preview")
        result = await a.call(actor, tool.name, {**forms.changed(fields, args, original),
                                                 "preview": False, "preview_token": token,
                                                 "idempotency_key": key})
    except ShopfloorError as exc:
        fresh = exc.details.get("preview") if exc.code == "stale_preview" else None
        if isinstance(fresh, dict):
            return await tool_page(a, request, actor, args=args, status=409, original=original,
                                   outcome={"kind": "preview", "payload": fresh,
                                            "stale": exc.message,
                                            "names": await names(a, actor, fresh)})
        return await tool_page(a, request, actor, args=args or _safe_args(fields, form),
                               outcome={"kind": "error", "error": exc}, status=_status(exc),
                               original=original)
    return await tool_page(a, request, actor, args=args, outcome={
        "kind": "applied", "result": result, "links": record_links(tool.name, result)})


async def start(a: Admin, request: Request, actor: Actor) -> Response:
    """A job tool (run_mrp): start it and go to its page, which follows it live."""
    tool = tool_of(a, request.path_params["name"])
    fields = forms.form_fields(tool.input_schema)
    form = await form_of(request)
    try:
        result = await a.call(actor, tool.name, forms.parse(fields, form))
    except ShopfloorError as exc:
        return await tool_page(a, request, actor, args=_safe_args(fields, form),
                               outcome={"kind": "error", "error": exc}, status=_status(exc))
    target = f"/jobs/{result.get('job_id')}"
    if request.headers.get("hx-request"):
        return Response(status_code=204, headers={"HX-Location": target})
    return RedirectResponse(target, status_code=303)


async def names(a: Admin, actor: Actor, payload: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Item names and units for the SKUs a preview names (its document has SKUs only)."""
    doc = payload.get("document") or {}
    skus: list[str] = []
    for key in ("sku", "product"):
        if isinstance(doc.get(key), str):
            skus.append(doc[key])
    for row in doc.get("lines") or []:
        if isinstance(row, dict) and isinstance(row.get("sku"), str):
            skus.append(row["sku"])
    for change in payload.get("changes") or []:
        key = str(change.get("key") or "")
        if change.get("entity") == "stock" and "@" in key:
            skus.append(key.rsplit("@", 1)[0])
    items = await items_named(a, actor, skus)
    return {"names": {s: str(i["name"]) for s, i in items.items() if i.get("name")},
            "units": {s: str(i["uom"]) for s, i in items.items() if i.get("uom")}}


async def items_named(a: Admin, actor: Actor, skus: list[str]) -> dict[str, dict[str, Any]]:
    """The items behind some SKUs, in one `search_items` call; unknown SKUs are
    simply absent."""
    wanted = list(dict.fromkeys(s for s in skus if s))[:forms.MAX_LINES]
    if not wanted or not a.may(actor, "search_items"):
        return {}
    got = await a.read(actor, "search_items", {"skus": wanted, "limit": len(wanted)})
    return {i["sku"]: i for i in got.get("items", []) if i.get("sku") in wanted}


def record_links(tool: str, result: dict[str, Any]) -> list[tuple[str, str]]:
    """Where an applied write's document lives in the admin."""
    number = result.get("number")
    out: list[tuple[str, str]] = []
    for part, base in (("purchase_order", "/purchase-orders/"),
                       ("sales_order", "/sales-orders/"), ("fulfill_order", "/sales-orders/"),
                       ("manufacturing_order", "/manufacturing-orders/")):
        if part in tool and isinstance(number, str):
            out.append((f"Open {number}", base + number))
    if tool.endswith("_item") and isinstance(result.get("sku"), str) and tool != "delete_item":
        out.append((f"Open {result['sku']}", "/items/" + result["sku"]))
    if result.get("job_id"):
        out.append(("Follow the job", f"/jobs/{result['job_id']}"))
    if result.get("operation_id"):
        out.append(("In the operation log", f"/log/{result['operation_id']}"))
    return out


def _status(exc: ShopfloorError) -> int:
    return 403 if exc.code == "forbidden" else 422


def _safe_args(fields: list[forms.Field], form: dict[str, list[str]]) -> dict[str, Any]:
    """What the user typed, to show again after an error (even if it does not parse)."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.kind == "lines":
            rows = forms.prefill([f], form).get(f.name, [])
            out[f.name] = rows
        elif f.kind == "bool":
            out[f.name] = bool(form.get(f.name))
        elif form.get(f.name):
            out[f.name] = form[f.name][-1]
    return out
