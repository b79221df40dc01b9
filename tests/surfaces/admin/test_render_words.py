"""The renderer the cards and the admin's previews share (ui/render.js), run in Node as
the browser runs it: an amount in the currency beside it (a change row's), a cost per unit
to four decimals, a planned cost's parts as money, a scheduled range of times in words."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import shopfloor.ui

pytestmark = pytest.mark.quick

RENDER = Path(shopfloor.ui.__file__).parent / "render.js"
CALLS = [
    ["average_cost", "1.66", {"currency": "EUR"}],
    ["average_cost", "0.018400", {"currency": "EUR"}],
    ["total", "1020", {"currency": "USD"}],
    ["total", "1200.4", {"currency": "JPY"}],
    ["planned_cost", {"materials": "103.261304", "total": "332.027971"}, {}],
    ["planned", "Cut on CUT: 2026-12-04T10:23+00:00 -> 2026-12-04T11:55+00:00", None],
]


def _drawn() -> list[str]:
    node = shutil.which("node")
    assert node, "Node runs the renderer's test (make e2e-deps needs it too)"
    script = (
        'Object.defineProperty(globalThis, "navigator", {value: {language: "en-GB"}, '
        "configurable: true});"
        f"const R = new Function(require('fs').readFileSync({json.dumps(str(RENDER))}, "
        "'utf8') + '; return ShopfloorRender;')();"
        # a preview sets the books' currency as the fallback, as the admin's does (with no
        # DOM here its drawing stops; the fallback stays set)
        "try { R.preview(null, {}, {currency: 'EUR'}); } catch (e) {}"
        f"const calls = {json.dumps(CALLS)};"
        "const out = calls.map(([k, v, row]) => R.display(k, v, row, '', 'UTC'));"
        # a change row's subject, as the preview's "What changes" names it
        "const cell = {}; const root = {replaceChildren() {}, appendChild(e) { return e; }};"
        "globalThis.document = {createElement: () => ({appendChild(e) { return e; }, "
        "set textContent(t) { cell.text = t; }, createTHead: () => ({insertRow: () => "
        "({appendChild() {}})}), createTBody: () => ({insertRow: () => "
        "({appendChild(e) { return e; }})})})};"
        "const seen = [];"
        "Object.defineProperty(cell, 'text', {set(t) { seen.push(t); }});"
        "R.preview(root, {changes: [{entity: 'variance', key: 'purchase_order PO-00012', "
        "field: 'M1@MAIN price', before: null, after: '-11', currency: 'EUR'}]}, "
        "{currency: 'EUR'});"
        "out.push(seen.find((t) => String(t).startsWith('Variance')));"
        "console.log(JSON.stringify(out));")
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 0, out.stderr
    drawn: list[str] = json.loads(out.stdout)
    return drawn


def test_the_renderer_draws_amounts_in_their_currency_and_times_in_words() -> None:
    assert _drawn() == [
        "€1.66", "€0.0184", "US$1,020.00", "JP¥1,200",
        "Materials: €103.26, Total: €332.03",
        "Cut on CUT: Fri 4 Dec, 10:23\u201311:55",
        "Variance purchase order PO-00012",
    ]


def test_the_cli_text_says_an_amount_with_its_currency() -> None:
    """A dollar order's total read "total: 1020" beside "currency: USD" in the terminal."""
    from shopfloor.surfaces.render import render

    order = {"applied": True, "summary": "Create purchase order PO-00001", "number": "PO-00001",
             "total": "1020", "currency": "USD", "landed_costs": "9.2",
             "lines": [{"sku": "M1", "unit_price": "0.85"}]}
    text = render(order, "text")
    assert "total: US$1,020.00" in text.splitlines()
    assert "landed_costs: 9.2" in text.splitlines()  # the books' money, not the order's
    assert json.loads(render(order, "json")) == order  # the figures themselves untouched


def test_the_cli_text_says_nested_rows_amounts_in_the_currency_above_them() -> None:
    """An order's lines, a supplier item's breaks and a preview's money rows read in their
    currency, formatted as the admin draws them; a row naming its own currency keeps it."""
    from shopfloor.surfaces.render import render

    order = {"number": "PO-00001", "total": "1020.004", "currency": "USD",
             "lines": [{"sku": "M1", "quantity": "1200", "unit_price": "0.850000"},
                       {"sku": "M2", "quantity": "3", "unit_price": "332.027971"}],
             "suppliers": [{"supplier": "Tokyo Tools", "currency": "JPY",
                            "breaks": [{"min_quantity": "10", "unit_price": "1200"}]}]}
    for fmt in ("text", "md"):
        text = render(order, fmt)
        assert "US$1,020.00" in text and "US$0.85" in text and "US$332.028" in text, text
        assert "JP¥1,200" in text and "332.027971" not in text, text
    preview = {"preview": True, "summary": "Receive", "changes": [
        {"entity": "item", "key": "M1", "field": "average cost", "before": "1.8",
         "after": "1.662345", "currency": "EUR"},
        {"entity": "item", "key": "M1", "field": "on hand", "before": "1", "after": "2"}]}
    rows = render(preview, "text").splitlines()
    assert any("€1.80" in r and "€1.6623" in r for r in rows), rows
    assert any(r.split()[-2:] == ["1", "2"] for r in rows), rows  # not money: as it is
