"""Toolsets: which of the catalogue's tools a host is listed, and finding a tool by words.

An agent pays for every listed tool's description on every turn, so a host is listed a
selection: whole toolsets (each tool declares its area once, `Facts.toolset`), `default`
(the office day's tools, `Facts.everyday`) or `all`. The discovery toolset is listed
whatever the selection, so an agent can always ask for more. A tool left out of a
listing still answers when called by name: the selection shapes the listing, never what
a role may do.

Finding ranks tools against a question with the catalogue's own words (name, title,
description and the toolset's own line), by BM25 over lightly stemmed words: no model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from shopfloor.kernel.errors import ValidationFailed

if TYPE_CHECKING:
    from shopfloor.registry.tool import Tool

DEFAULT = "default"
ALL = "all"
DISCOVERY = "discovery"
"""The toolset listed whatever the selection: how an agent asks for the rest."""


def names_in(tools: Iterable[Tool]) -> list[str]:
    """The toolsets, in the catalogue's order."""
    return list(dict.fromkeys(t.facts.toolset for t in tools))


def choose(text: str | Sequence[str] | None, known: Iterable[str],
           field: str = "toolsets") -> frozenset[str]:
    """A selection from `default,floor` (or a list of names); nothing given is `default`.
    A name that is no toolset is refused, naming the ones there are."""
    words = text.split(",") if isinstance(text, str) else list(text or ())
    chosen = frozenset(w.strip().lower() for w in words if w.strip()) or frozenset({DEFAULT})
    allowed = {DEFAULT, ALL, *known}
    unknown = sorted(chosen - allowed)
    if unknown:
        raise ValidationFailed(f"no toolset {', '.join(unknown)}; there are "
                               f"{', '.join(sorted(allowed))}", field=field)
    return chosen


def listed_as(toolset: str, everyday: bool, chosen: frozenset[str]) -> bool:
    """Whether a tool of `toolset` (an office day's tool when `everyday`) is listed."""
    return (ALL in chosen or toolset in chosen or toolset == DISCOVERY
            or (DEFAULT in chosen and everyday))


def listed(tool: Tool, chosen: frozenset[str]) -> bool:
    return listed_as(tool.facts.toolset, tool.facts.everyday, chosen)


def selection(tools: Iterable[Tool], chosen: frozenset[str]) -> list[Tool]:
    return [t for t in tools if listed(t, chosen)]


_WORD = re.compile(r"[a-z0-9]+")
_STOPS = ("a an the is are am be been my our your its it i we you me us to of for in on at by "
          "with and or how much many what which who whom where when do does did can could "
          "should would will shall this that these those there here some any all get show "
          "tell give want need please from as into about")
_STOP = frozenset(_STOPS.split(" "))


def stem(word: str) -> str:
    """Plural, past and -ing forms to one word: enough for a catalogue's vocabulary."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + keep
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def words(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower().replace("_", " ")) if w not in _STOP]


def _document(tool: Tool, about: Mapping[str, str]) -> Counter[str]:
    """A tool's words, its name counted thrice and its title twice: they say what it does."""
    found: Counter[str] = Counter()
    for text, weight in ((tool.name, 3), (tool.title, 2), (tool.description, 1),
                         (f"{tool.facts.toolset} {about.get(tool.facts.toolset, '')}", 1)):
        for w in words(text):
            found[w] += weight
    return found


def rank(tools: Sequence[Tool], question: str, about: Mapping[str, str] | None = None,
         limit: int = 5) -> list[tuple[Tool, float]]:
    """The best tools for a question, best first (BM25, k1=1.2, b=0.75); none when no
    word of the question is in the catalogue."""
    docs = [_document(t, about or {}) for t in tools]
    if not docs:
        return []
    asked = set(words(question))
    length = [sum(d.values()) for d in docs]
    mean = sum(length) / len(docs)
    scored: list[tuple[Tool, float]] = []
    for tool, doc, size in zip(tools, docs, length, strict=True):
        score = 0.0
        for w in asked:
            tf = doc.get(w, 0)
            if not tf:
                continue
            df = sum(1 for d in docs if w in d)
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * size / mean))
        if score > 0:
            scored.append((tool, score))
    scored.sort(key=lambda pair: -pair[1])
    return scored[:limit]
