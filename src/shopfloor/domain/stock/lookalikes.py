"""Warnings for a key about to be created: the form it will be stored in, when that is not
how it was typed, and the existing keys people would take it for (the same skeleton:
letters from another script that look alike, or only a difference of case).

Warnings, not refusals: `plain-1` beside `PLAIN-1` may be meant, and the preview is
where a person decides. The check runs only where a key is created, as one read of an
indexed column (per 500 keys of an import), never on the lookups of the hot paths.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.kernel import keys
from shopfloor.store.tables import Item

SHOWN = 3  # look-alikes named per new key
_CHUNK = 500


def new_key(op: Op, column: Any, skeleton: Any, key: str, *, fld: str, what: str) -> None:
    """Warn about `key`, a new value of `column` (whose look is in `skeleton`), before
    it is inserted."""
    if isinstance(key, keys.Retyped):
        op.warn("key_normalised", normalised(what, key), fld=fld)
    alike = op.session.scalars(
        select(column).where(skeleton == keys.skeleton(key), column != key)
        .order_by(column).limit(SHOWN)).all()
    for other in alike:
        said = keys.likeness(key, other, f"existing {what} {other!r}")
        op.warn("key_lookalike", f"{what} {said}: check it is not the same one", fld=fld)


def normalised(what: str, key: keys.Retyped) -> str:
    return (f"{what} {key.typed!r} will be stored as {key!r} (compatibility forms such as "
            "fullwidth letters are stored as their plain letters, and found typed either way)")


def new_items(op: Op, created: Sequence[tuple[int, str]]) -> None:
    """Warn about the SKUs an import creates (line, sku), already flushed: each one's
    look-alikes among the existing items and the file's earlier new rows, by line."""
    if not created:
        return
    lines = {sku: line for line, sku in created}
    for line, sku in created:
        if isinstance(sku, keys.Retyped):
            op.warn("key_normalised", f"line {line}: {normalised('item', sku)}", fld="sku")
    alike: dict[str, list[str]] = defaultdict(list)
    for fold, other in _by_skeleton(op, {keys.skeleton(sku) for _, sku in created}):
        alike[fold or ""].append(other)
    for line, sku in created:
        others = [o for o in sorted(alike[keys.skeleton(sku)])
                  if o != sku and lines.get(o, 0) < line][:SHOWN]
        for other in others:
            named = f"item {other!r} (line {lines[other]})" if other in lines \
                else f"existing item {other!r}"
            said = keys.likeness(sku, other, named)
            op.warn("key_lookalike", f"line {line}: item {said}: check it is not the same one",
                    fld="sku")


def _by_skeleton(op: Op, folds: Iterable[str]) -> Iterable[tuple[str | None, str]]:
    wanted = sorted(folds)
    for start in range(0, len(wanted), _CHUNK):
        yield from op.session.execute(
            select(Item.sku_skeleton, Item.sku)
            .where(Item.sku_skeleton.in_(wanted[start:start + _CHUNK])))
