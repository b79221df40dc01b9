"""Pictures drawn on the server as SVG: no script, nothing fetched, readable without
colour (each mark has its words in a <title>, the chart a <desc>), and the same on a
phone (it scales to its box).

`projected_stock` draws an item's time-phased record as `get_projected_stock` answers it:
the balance as a step line over the coming weeks, the reorder point as a dashed line,
each dated in (▲) and out (▼) marked where it lands. `bars` draws named amounts of money
side by side (the valuation's value by item kind and by location): one bar a row, its
name on the left and its amount at its end, so a long name or a phone's width never
squeezes the figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from markupsafe import Markup

from shopfloor.ui.formats import Formats, decimal_of

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 14, 30
MIN_DAYS = 28


def _d(value: Any) -> Decimal:
    return decimal_of(value) or Decimal(0)


def _day(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def projected_stock(record: Mapping[str, Any], reorder_point: Any, formats: Formats,
                    *, weeks: int = 8) -> Markup:
    """The chart for one `get_projected_stock` answer (`rows`: date, incoming, outgoing,
    balance, document)."""
    today = _day(record["today"])
    rows: Sequence[Mapping[str, Any]] = record.get("rows") or []
    last = max([today + timedelta(days=max(MIN_DAYS, weeks * 7))] +
               [_day(r["date"]) for r in rows])
    span = max((last - today).days, 1)
    points = [(today, _d(record.get("on_hand")))] + [(max(_day(r["date"]), today),
                                                       _d(r["balance"])) for r in rows]
    reorder = _d(reorder_point)
    values = [b for _, b in points] + [reorder, Decimal(0)]
    low, high = min(values), max(values)
    if high == low:
        high = low + 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(day: date) -> float:
        return LEFT + plot_w * (day - today).days / span

    def y(value: Decimal) -> float:
        return TOP + plot_h * float((high - value) / (high - low))

    # the step line: flat until the next dated change, then straight up or down
    path = [f"M{x(points[0][0]):.1f},{y(points[0][1]):.1f}"]
    for day, bal in points[1:]:
        path.append(f"H{x(day):.1f}V{y(bal):.1f}")
    path.append(f"H{x(last):.1f}")
    parts = [
        Markup('<line class="axis" x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" '
               'stroke="currentColor" stroke-opacity="0.4"/>').format(LEFT, y(Decimal(0)),
                                                                      WIDTH - RIGHT),
    ]
    for value in sorted({low, high, Decimal(0)}):
        parts.append(Markup('<text class="tick" x="{0}" y="{1:.1f}" text-anchor="end" '
                            'font-size="11" fill="currentColor">{2}</text>').format(
            LEFT - 6, y(value) + 4, formats.quantity(value)))
    for week in range(0, span + 1, 7):
        day = today + timedelta(days=week)
        parts.append(Markup('<text class="tick" x="{0:.1f}" y="{1}" text-anchor="middle" '
                            'font-size="11" fill="currentColor">{2}</text>').format(
            x(day), HEIGHT - 10, _short(formats, day)))
    if reorder:
        parts.append(Markup(
            '<line class="reorder" x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" '
            'stroke="#b45309" stroke-width="1.5" stroke-dasharray="6 4">'
            '<title>Reorder point {3}</title></line>').format(
            LEFT, y(reorder), WIDTH - RIGHT, formats.quantity(reorder)))
    parts.append(Markup('<path class="balance" d="{0}" fill="none" stroke="#2563eb" '
                        'stroke-width="2"/>').format(" ".join(path)))
    for r in rows:
        day, bal = max(_day(r["date"]), today), _d(r["balance"])
        cx, cy = x(day), y(bal)
        inc, out = _d(r.get("incoming")), _d(r.get("outgoing"))
        what = r.get("document") or r.get("kind") or ""
        if inc:
            shape = f"M{cx:.1f},{cy - 9:.1f} l5,8 h-10 z"
            words = f"{formats.date(day)}: in {formats.quantity(inc)} {what}"
            parts.append(Markup('<path class="in" d="{0}" fill="#15803d"><title>{1}</title>'
                                '</path>').format(shape, words))
        if out:
            shape = f"M{cx:.1f},{cy + 9:.1f} l5,-8 h-10 z"
            words = f"{formats.date(day)}: out {formats.quantity(out)} {what}"
            parts.append(Markup('<path class="out" d="{0}" fill="#b91c1c"><title>{1}</title>'
                                '</path>').format(shape, words))
    desc = _description(record, reorder, formats, rows)
    return Markup(
        '<svg class="chart" id="projected-chart" viewBox="0 0 {0} {1}" role="img" '
        'aria-labelledby="projected-title projected-desc" xmlns="http://www.w3.org/2000/svg" '
        'preserveAspectRatio="xMidYMid meet"><title id="projected-title">Projected stock of '
        '{2}</title><desc id="projected-desc">{3}</desc>{4}</svg>').format(
        WIDTH, HEIGHT, record.get("sku", ""), desc, Markup("").join(parts))


def _short(formats: Formats, day: date) -> str:
    """A tick's date without its year: `4 Dec`, `Dec 4`, `04.12.`."""
    text = formats.date(day)
    year = str(day.year)
    return text.replace(year, "").strip(" ,.") if year in text else text


def _description(record: Mapping[str, Any], reorder: Decimal, formats: Formats,
                 rows: Sequence[Mapping[str, Any]]) -> str:
    said = [f"On hand {formats.quantity(record.get('on_hand'))} today"]
    if reorder:
        said.append(f"reorder point {formats.quantity(reorder)}")
    said.append(f"{len(rows)} dated changes")
    if record.get("first_short"):
        said.append(f"short from {formats.date(record['first_short'])}")
    said.append(f"ends at {formats.quantity(record.get('end_balance'))}")
    return "; ".join(said) + "."


BAR_WIDTH, BAR_ROW, BAR_LABEL, BAR_FIGURE = 400, 26, 130, 100
LABEL_CHARS = 13  # at 13 px, even capitals fit the label column


def bars(chart_id: str, title: str, amounts: Sequence[tuple[str, Any]], formats: Formats,
         currency: str | None = None) -> Markup:
    """Named amounts of money as horizontal bars from zero (a negative one leftwards),
    each bar's <title> and the chart's <desc> saying every figure in words."""
    figures = [(str(name), _d(value)) for name, value in amounts]
    low = min([Decimal(0), *(v for _, v in figures)])
    high = max([Decimal(0), *(v for _, v in figures)])
    if high == low:
        high = low + 1
    plot_w = BAR_WIDTH - BAR_LABEL - BAR_FIGURE
    height = BAR_ROW * len(figures) + 8

    def x(value: Decimal) -> float:
        return BAR_LABEL + plot_w * float((value - low) / (high - low))

    parts = []
    for i, (name, value) in enumerate(figures):
        top = 4 + i * BAR_ROW
        said = formats.money(value, currency)
        shown = name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "…"
        left, right = sorted((x(Decimal(0)), x(value)))
        parts.append(Markup(
            '<g class="bar" data-name="{0}" data-value="{1}"><title>{0}: {2}</title>'
            '<text x="{3}" y="{4:.1f}" text-anchor="end" font-size="13" '
            'fill="currentColor">{5}</text>'
            '<rect x="{6:.1f}" y="{7}" width="{8:.1f}" height="{9}" fill="#2563eb"/>'
            '<text class="figure" x="{10:.1f}" y="{4:.1f}" font-size="13" '
            'fill="currentColor">{2}</text></g>').format(
            name, value, said, BAR_LABEL - 6, top + BAR_ROW / 2 + 3.5, shown, left, top + 3,
            max(right - left, 1.0), BAR_ROW - 8, max(right, x(Decimal(0))) + 6))
    desc = "; ".join(f"{name} {formats.money(value, currency)}" for name, value in figures)
    return Markup(
        '<svg class="chart bars" id="{0}" viewBox="0 0 {1} {2}" role="img" '
        'aria-labelledby="{0}-title {0}-desc" xmlns="http://www.w3.org/2000/svg" '
        'preserveAspectRatio="xMinYMin meet"><title id="{0}-title">{3}</title>'
        '<desc id="{0}-desc">{4}</desc>{5}</svg>').format(
        chart_id, BAR_WIDTH, height, title, (desc or "Nothing to show") + ".",
        Markup("").join(parts))
