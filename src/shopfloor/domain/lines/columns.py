"""A line copied whole from its table's columns: replacing an order's lines keeps every
stored figure of a kept line (received, returned, its unit's figures, any column added
later) unless the change names it, so no column can be forgotten by a hand-written copy."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import inspect

if TYPE_CHECKING:
    from shopfloor.store.tables.core import Base

Row = TypeVar("Row", bound="Base")
KEYS = ("order_id",)
"""Besides the primary key, the columns a copy never carries: the key to the document it
hangs from, which the new row gets by being appended to that document's lines."""


@cache
def carried_columns(table: type[Base]) -> dict[str, Any]:
    """Every column attribute of `table` but its keys, each with its scalar default (what
    a new row starts from, so its figures read as numbers before the insert; None where
    the column has none, which leaves it to the table)."""
    found: dict[str, Any] = {}
    for attr in inspect(table).column_attrs:
        column = attr.columns[0]
        if attr.key in KEYS or column.primary_key:
            continue
        default = column.default
        found[attr.key] = default.arg if default is not None and default.is_scalar else None
    return found


def copied(line: Row | None, table: type[Row], **changes: Any) -> Row:
    """A new row of `table` with `line`'s columns (none given: the table's defaults) and
    `changes` over them."""
    columns = carried_columns(table)
    kept = ({k: v for k, v in columns.items() if v is not None} if line is None
            else {k: getattr(line, k) for k in columns})
    return table(**{**kept, **changes})
