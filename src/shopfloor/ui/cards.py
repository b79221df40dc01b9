"""The MCP Apps cards: self-contained HTML resources served under ui://shopfloor/.

The CSP metadata declares no external domain at all: a card loads nothing from outside,
so it works offline and under a host's strictest policy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources as package_files
from typing import Any

from shopfloor.kernel.statuses import BY_KIND

PREVIEW_URI = "ui://shopfloor/preview.html"
JOB_URI = "ui://shopfloor/job.html"
NO_EXTERNAL: dict[str, list[str]] = {
    "connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}


@dataclass(frozen=True)
class Card:
    uri: str
    name: str
    title: str
    description: str
    html: str

    @property
    def meta(self) -> dict[str, Any]:
        return {"ui": {"csp": NO_EXTERNAL, "prefersBorder": True}}


def _read(name: str) -> str:
    return package_files.files("shopfloor.ui").joinpath(name).read_text(encoding="utf-8")


@cache
def _html(name: str) -> str:
    """A card with the shared bridge, renderer and stylesheet inlined: one file, nothing
    to fetch. The renderer is the one the web admin draws its previews with. Each card
    extends `card.html`, the page, bridge set-up and outcome line every card has."""
    # jinja2 here, not at the top: the MCP server imports this module to list the cards,
    # and an import of jinja2 is ~15-60 ms of a cold start that may never serve one
    from jinja2 import Environment, FunctionLoader

    env = Environment(loader=FunctionLoader(_read), autoescape=False,
                      trim_blocks=True, keep_trailing_newline=True)
    return env.get_template(name).render(
        card=name.removesuffix(".html"), job_statuses=_job_statuses(),
        bridge_js=_read("bridge.js"), render_js=_read("render.js"), card_css=_read("card.css"))


def _job_statuses() -> str:
    """The job words a card compares with, from the one vocabulary (`is` names each word,
    so a script says `JOB.is.succeeded`, never the word itself)."""
    job = BY_KIND["job"].as_json()
    job["is"] = {w: w for w in job["words"]}
    return json.dumps(job)


def _with_currency(html: str, books: str | None) -> str:
    """Money in the books' currency (the database's), else SHOPFLOOR_CURRENCY, read when
    cards are served."""
    from shopfloor.app.settings import Settings

    code = "".join(ch for ch in (books or Settings.load().currency).upper()
                   if ch.isalpha())[:3]
    return html.replace('data-currency=""', f'data-currency="{code}"', 1)


def resources(books: str | None = None) -> list[Card]:
    """`books`: the company's currency, as its database keeps it."""
    return [
        Card(PREVIEW_URI, "preview", "Shopfloor preview",
             "Shows a write's preview; Confirm applies it exactly once.",
             _with_currency(_html("preview.html"), books)),
        Card(JOB_URI, "job", "Shopfloor job",
             "Live progress of a job, then its result (an MRP plan can be applied from it).",
             _html("job.html")),
    ]
