"""The period lock's tools (issue 31): close the books up to a day, and read the lock with
its history. An admin's: closing a month is the accountant's decision, and so is
reopening one (lowering the lock is a write of its own, logged and previewed)."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import Field

from shopfloor.domain.accounting import lock
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.tools.fields import Day, Out, Text

tools = Toolset("accounting")


class SetLockDate(WriteRequest):
    lock_date: Day | None = Field(None, description="the last closed day (UTC)")
    lift: bool = Field(False, description="lift the lock instead (give no date)")
    reason: Text = Field(min_length=1, description="why, for the audit trail")


class LockOut(Out):
    lock_date: date | None
    previous: date | None
    reason: str
    set_by: str
    set_at: datetime


def _said(day: date | None) -> str:
    return day.isoformat() if day is not None else "none"


@tools.write("set_lock_date", title="Set lock date", response=LockOut, role=Role.admin,
             destructive=True, undo=Undo.using(lock.unset),
             description="Close the books up to a day: no movement, correction, revert, bill "
                         "or entry may be dated on or before it. Lowering it reopens days.")
def set_lock_date(op: Op, req: SetLockDate) -> Done[LockOut]:
    if (req.lock_date is None) != req.lift:
        raise ValidationFailed("give lock_date, or lift: true to lift the lock (not both)",
                               field="lock_date")
    done = lock.set_lock(op, req.lock_date, req.reason)
    day, was = done["lock_date"], done["previous"]
    if day is None:
        words = f"Lift the lock (was {_said(was)})"
    elif was is not None and day < was:
        words = f"Lower the lock from {_said(was)} to {_said(day)}"
    else:
        words = f"Lock the books up to {_said(day)}" + (f" (was {_said(was)})" if was else "")
    return Done(words, LockOut(**done))


class NoArgs(Request):
    pass


class LockSetting(Out):
    lock_date: date | None
    previous: date | None
    reason: str
    set_by: str
    set_at: datetime
    operation_id: str | None


class LockDateOut(Out):
    lock_date: date | None = Field(description="the last closed day; none: not locked")
    set_by: str | None
    set_at: datetime | None
    history: list[LockSetting] = Field(description="the latest settings, newest first")


@tools.read("get_lock_date", title="Lock date", response=LockDateOut,
            description="The last day the books are closed to writes, who set it and when, "
                        "with its latest settings.")
def get_lock_date(op: Op, req: NoArgs) -> LockDateOut:
    found = lock.current(op)
    return LockDateOut(lock_date=found["lock_date"], set_by=found["set_by"],
                       set_at=found["set_at"],
                       history=[LockSetting(**h) for h in found["history"]])
