"""The server-drawn charts (ui/charts.py). The projected stock: an SVG from a
`get_projected_stock` answer, with the reorder point and each dated in and out marked in
words a screen reader reads; hostile text stays text."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from shopfloor.ui.charts import bars, projected_stock
from shopfloor.ui.formats import Formats

pytestmark = pytest.mark.quick

RECORD = {"sku": "GLUE", "today": "2026-11-25", "on_hand": "12.000000", "end_balance": "-8",
          "first_short": "2026-12-10", "rows": [
              {"date": "2026-12-01", "kind": "purchase_order", "document": "PO-1",
               "incoming": "10", "outgoing": "0", "balance": "22"},
              {"date": "2026-12-10", "kind": "sales_order", "document": "SO-<script>",
               "incoming": "0", "outgoing": "30", "balance": "-8"}]}


def test_the_chart_marks_each_in_and_out_and_the_reorder_point() -> None:
    svg = str(projected_stock(RECORD, "5.000000", Formats("en_GB")))
    tree = ElementTree.fromstring(svg)  # well-formed
    titles = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}title")]
    assert "1 Dec 2026: in 10 PO-1" in titles
    assert "10 Dec 2026: out 30 SO-<script>" in titles  # text, not markup
    assert "Reorder point 5" in titles
    assert "<script" not in svg and "http" not in svg.replace("http://www.w3.org/2000/svg", "")
    desc = next(tree.iter("{http://www.w3.org/2000/svg}desc")).text or ""
    assert "On hand 12 today" in desc and "short from 10 Dec 2026" in desc
    # the balance steps: flat to 1 Dec, up to 22, flat to 10 Dec, down to -8
    path = next(e for e in tree.iter() if e.get("class") == "balance").get("d") or ""
    assert len(re.findall(r"H[\d.]+V[\d.]+", path)) == 2
    assert len([e for e in tree.iter() if e.get("class") in ("in", "out")]) == 2


def test_a_quiet_item_still_draws_its_weeks() -> None:
    svg = str(projected_stock({"sku": "X", "today": "2026-11-25", "on_hand": "0",
                               "end_balance": "0", "rows": []}, "0", Formats("de_DE")))
    ElementTree.fromstring(svg)
    assert "25.11" in svg and 'class="reorder"' not in svg


def _bars(svg: str) -> list[tuple[str, str, str, float]]:
    """(name, data-value, title, bar width) of each bar."""
    tree = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    out = []
    for g in tree.iter(f"{ns}g"):
        rect = g.find(f"{ns}rect")
        assert rect is not None
        out.append((g.get("data-name") or "", g.get("data-value") or "",
                    g.findtext(f"{ns}title") or "", float(rect.get("width") or 0)))
    return out


def test_bars_carry_their_figures_in_words_and_to_scale() -> None:
    svg = str(bars("by-kind", "Stock value by item kind",
                   [("Material", "4600.5"), ("Product", "1150.125"), ("<b>Intermediate</b>", "0")],
                   Formats("en_GB"), "EUR"))
    tree = ElementTree.fromstring(svg)
    assert tree.get("role") == "img" and tree.get("aria-labelledby") == "by-kind-title by-kind-desc"
    assert next(tree.iter("{http://www.w3.org/2000/svg}title")).text == "Stock value by item kind"
    desc = next(tree.iter("{http://www.w3.org/2000/svg}desc")).text
    assert desc == "Material €4,600.50; Product €1,150.13; <b>Intermediate</b> €0.00."
    drawn = _bars(svg)
    assert [(n, v, t) for n, v, t, _ in drawn] == [
        ("Material", "4600.5", "Material: €4,600.50"),
        ("Product", "1150.125", "Product: €1,150.13"),
        ("<b>Intermediate</b>", "0", "<b>Intermediate</b>: €0.00")]
    assert "<b>" not in svg  # a name is text, never markup
    assert abs(drawn[0][3] / drawn[1][3] - 4600.5 / 1150.125) < 0.01  # one scale
    figures = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}text")
               if t.get("class") == "figure"]
    assert figures == ["€4,600.50", "€1,150.13", "€0.00"]  # each amount beside its bar


def test_a_negative_bar_runs_left_of_zero_and_yen_has_no_decimals() -> None:
    svg = str(bars("by-location", "Value", [("MAIN", "300"), ("RETURNS", "-100")],
                   Formats("en"), "JPY"))
    (_, _, main, main_w), (_, _, back, back_w) = _bars(svg)
    assert main == "MAIN: ¥300" and back == "RETURNS: -¥100"
    assert abs(main_w / back_w - 3) < 0.01
    rects = [e for e in ElementTree.fromstring(svg).iter("{http://www.w3.org/2000/svg}rect")]
    zero = float(rects[0].get("x") or 0)
    assert float(rects[1].get("x") or 0) + back_w == zero  # it ends at zero
