"""Accounting: what the accountant closes a month from. The trial balance for a period (or
as at a day), goods received not invoiced, the journal filtered by period, account and
document and paged by its cursor, the journal as CSV and as a beancount ledger, and the
lock date with its own form (the tool's generated fields, previewed and confirmed through
the tools' own endpoints, so the page has no write path of its own).

Everything comes from the registry as the signed-in actor. GRNI's balance is read from
the trial balance by the account the rules name for it; the receipts behind it are listed
only where the catalogue has a tool that lists them."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin import forms
from shopfloor.surfaces.admin.core import Admin

PERIOD = ("start", "end")
FILTERS = (*PERIOD, "account", "document")
UNBILLED = "list_unbilled_receipts"
LOCK = "set_lock_date"
FILES = {"csv": ("text/csv; charset=utf-8", "csv"),
         "beancount": ("text/plain; charset=utf-8", "beancount")}


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/accounting", accounting),
            admin.page("/accounting/journal.{format}", download)]


def _filters(request: Request) -> dict[str, str]:
    q = request.query_params
    return {k: q[k].strip() for k in FILTERS if q.get(k, "").strip()}


async def accounting(a: Admin, request: Request, actor: Actor) -> Response:
    filters = _filters(request)
    period = {k: v for k, v in filters.items() if k in PERIOD}
    trial = await a.call(actor, "get_trial_balance", period)
    cursor = request.query_params.get("cursor")
    journal = await a.call(actor, "list_journal_entries",
                           {**filters, **({"cursor": cursor} if cursor else {})})
    accounts = (await a.read(actor, "get_stock_accounts", {})).get("accounts", [])
    grni = _grni(trial, accounts)
    query = "?" + urlencode(period) if period else ""
    return a.render(
        request, "accounting.html", actor, q=request.query_params, trial=trial,
        grni=grni, unbilled=await _unbilled(a, actor, period.get("end")),
        entries=journal.get("entries", []), lock=await a.read(actor, "get_lock_date", {}),
        lock_form=_lock_form(a, actor), accounts=_codes(trial, accounts),
        downloads=[(f"/accounting/journal.{f}{query}", label, f"journal-{f}")
                   for f, label in (("csv", "Download CSV"),
                                    ("beancount", "Download beancount"))],
        **forms.pages(request, journal.get("next_cursor")))


def _grni(trial: dict[str, Any], accounts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """GRNI's account and what it holds at the period's end, owed (a credit) as positive."""
    rule = next((r for r in accounts if r["role"] == "grni" and not r.get("location")
                 and not r.get("item_kind")), None)
    if rule is None:
        return None
    row = next((r for r in trial.get("rows", []) if r["account"] == rule["code"]), None)
    closing = Decimal(str(row["closing"])) if row else Decimal(0)
    return {"code": rule["code"], "name": rule["name"], "owed": -closing}


def _codes(trial: dict[str, Any], accounts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The accounts a filter may name: those with postings and those the rules name."""
    out = {r["account"]: r["name"] for r in trial.get("rows", [])}
    for r in accounts:
        out.setdefault(r["code"], r["name"])
    return sorted(out.items())


async def _unbilled(a: Admin, actor: Actor, end: str | None) -> dict[str, Any] | None:
    """The receipts GRNI holds, as the catalogue's own tool lists them (None: no such tool
    here); as at the period's end when the tool takes a day."""
    if not a.may(actor, UNBILLED):
        return None
    args: dict[str, Any] = {}
    wanted = a.registry.get(UNBILLED).input_schema.get("properties", {})
    day = next((k for k in ("date", "as_of", "as_at", "end") if k in wanted), None)
    if end and day:
        args[day] = end
    found = await a.read(actor, UNBILLED, args)
    rows = next((v for v in found.values() if isinstance(v, list)), [])
    return {"rows": [r for r in rows if isinstance(r, dict)], "next": found.get("next_cursor")}


def _lock_form(a: Admin, actor: Actor) -> dict[str, Any] | None:
    """The lock tool's own fields, filled with the end of last month as a suggestion."""
    if not a.may(actor, LOCK):
        return None
    tool = a.registry.get(LOCK)
    first = a.today().replace(day=1)
    return {"tool": tool, "fields": forms.form_fields(tool.input_schema),
            "values": {"lock_date": (first - timedelta(days=1)).isoformat()}}


async def download(a: Admin, request: Request, actor: Actor) -> Response:
    """The journal as the export tool writes it, as a file; named for its period."""
    kind = request.path_params["format"]
    if kind not in FILES:
        return Response("not found", status_code=404)
    period = {k: v for k, v in _filters(request).items() if k in PERIOD}
    result = await a.call(actor, "export_journal", {"format": kind, **period})
    media, ext = FILES[kind]
    name = f"journal-{period.get('start', 'start')}-to-{period.get('end', _today(a))}.{ext}"
    return Response(result["text"], media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff"})


def _today(a: Admin) -> str:
    today: date = a.today()
    return today.isoformat()
