"""Revaluing stock by hand (issue 31): the accountant's write beside the journal's reads,
in the accounting toolset (its own module, so the journal's module keeps to reading)."""

from __future__ import annotations

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections import stock_value
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Toolset, WriteRequest
from shopfloor.tools.fields import Amount, Key, Money, Out, Text

tools = Toolset("accounting")


class RevalueStock(WriteRequest):
    sku: Key
    location: Key
    lot: Key | None = Field(None, description="the lot, for a lot-tracked item")
    unit_cost: Money | None = Field(None, description="each unit's new cost")
    value: Money | None = Field(None, description="or what all of them are worth now")
    reason: Text = Field(description="why; shown in the operation log and the journal")


class RevaluationOut(Out):
    number: str
    sku: str
    location: str
    lot: str | None = None
    quantity: Amount
    value_before: Amount
    value_after: Amount
    change: Amount


@tools.write("revalue_stock", title="Revalue stock", response=RevaluationOut,
             role=Role.admin, destructive=True,  # can lower the stock's value
             undo=Undo.using(stock_value.undo),
             description="Give the stock of an item at a location (or one lot) a new unit "
                         "cost or value: a revaluation row, its variance and its journal "
                         "entry against the stock revaluation account.")
def revalue_stock(op: Op, req: RevalueStock) -> Done[RevaluationOut]:
    r = stock_value.revalue(op, req.sku, req.location, req.lot, req.unit_cost, req.value,
                            req.reason)
    lot = f" lot {r.lot}" if r.lot else ""
    return Done(f"Revalued {r.sku}{lot} at {r.location}: {fmt(r.value_before)} -> "
                f"{fmt(r.value_after)} (reason: {req.reason})",
                RevaluationOut(**vars(r)))
