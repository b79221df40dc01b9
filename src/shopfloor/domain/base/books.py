"""The currency the books are kept in, read where an amount of stock is recorded: a stock
value, an average cost or a variance is the books' money whatever document moved it, and
its change row says so (a dollar order's receipt must not read its average cost in
dollars)."""

from __future__ import annotations

from shopfloor.domain.base.context import Op
from shopfloor.store.tables import Meta

DEFAULT = "EUR"
KEY = "company_currency"
"""The `meta` row naming the books' currency (written once, at a database's first open)."""


def currency(op: Op) -> str:
    """The books' currency: the one the registry read at its open (it never changes under
    a ledger's rows), else read once per operation. Never read in the middle of a batch:
    a query there would flush the ledger's pending rows early and split its statements."""
    found = op.cache.get(KEY) or op.options.get(KEY)
    if found is None:
        row = op.session.get(Meta, KEY)
        found = op.cache[KEY] = row.value if row is not None else DEFAULT
    return str(found)
