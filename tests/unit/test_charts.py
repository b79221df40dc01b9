"""The projected-stock chart (ui/charts.py): an SVG drawn on the server from a
`get_projected_stock` answer, with the reorder point and each dated in and out marked in
words a screen reader reads; hostile text stays text."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from shopfloor.ui.charts import projected_stock
from shopfloor.ui.formats import Formats

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
