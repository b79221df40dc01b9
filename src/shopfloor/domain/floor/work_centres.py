"""Work centres: where operations run, what an hour there costs, how many run at once,
how fast, and when (its calendar).

The calendar is stored as the shifts a person gave (normalised: one row per time, days
grouped) with its closed dates and zone; `calendar_of` turns a row into the pure
`Calendar` the scheduler works with, once per row version and operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func, or_, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.floor import calendar as cal
from shopfloor.kernel import keys
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.store.tables import WorkCentre

FIELDS = ("name", "hourly_cost", "capacity", "efficiency_percent", "calendar",
          "closed_dates", "time_zone")


@dataclass(frozen=True)
class Centre:
    """What a person gives for a work centre; None: keep (or default, when created)."""

    name: str | None = None
    hourly_cost: Decimal | None = None
    capacity: int | None = None
    efficiency_percent: Decimal | None = None
    calendar: Sequence[Mapping[str, Any]] | None = None
    closed_dates: Sequence[date] | None = None
    time_zone: str | None = None


def _values(spec: Centre) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in FIELDS:
        v = getattr(spec, f)
        if v is None:
            continue
        if f == "calendar":
            v = cal.shifts_out(cal.week_of(v))
        elif f == "closed_dates":
            v = sorted(d.isoformat() for d in cal.closed_of(v))
        elif f == "time_zone":
            cal.zone_of(v)
        elif f == "capacity" and not 1 <= v <= 10000:
            raise ValidationFailed("capacity: 1 to 10000 units", field="capacity")
        elif f == "efficiency_percent" and not Decimal(1) <= v <= Decimal(1000):
            raise ValidationFailed("efficiency_percent: 1 to 1000", field="efficiency_percent")
        out[f] = v
    return out


def get(op: Op, code: str, *, fld: str = "work_centre", lock: bool = False) -> WorkCentre:
    stmt = select(WorkCentre).where(WorkCentre.code == keys.normal(code, 64))
    found = op.session.scalars(op.lock(stmt) if lock else stmt).one_or_none()
    if found is None:
        raise NotFound(f"no work centre {code!r}", field=fld)
    return found


def by_codes(op: Op, wanted: Sequence[tuple[str, str]]) -> dict[str, WorkCentre]:
    """Several centres in one read, by the codes as given; a missing one is named by its
    own field."""
    codes = {keys.normal(c, 64) for c, _ in wanted}
    found = {w.code: w for w in op.session.scalars(
        select(WorkCentre).where(WorkCentre.code.in_(codes)))} if codes else {}
    out: dict[str, WorkCentre] = {}
    for code, fld in wanted:
        centre = found.get(keys.normal(code, 64))
        if centre is None:
            raise NotFound(f"no work centre {code!r}", field=fld)
        out[code] = centre
    return out


def create(op: Op, code: str, spec: Centre) -> WorkCentre:
    if spec.name is None:
        raise ValidationFailed("a work centre needs a name", field="name")
    values = {"hourly_cost": Decimal(0), "capacity": 1, "efficiency_percent": Decimal(100),
              "calendar": cal.shifts_out(cal.week_of(cal.DEFAULT_SHIFTS)),
              "closed_dates": [], "time_zone": "UTC", **_values(spec)}
    if op.session.scalar(select(WorkCentre.id).where(WorkCentre.code == code)) is not None:
        raise Conflict(f"work centre {code} already exists", field="code")
    centre = WorkCentre(code=code, **values)
    op.session.add(centre)
    op.session.flush()
    for f in FIELDS:
        op.change("work_centre", code, f, None, _shown(values[f]))
    return centre


def modify(op: Op, code: str, spec: Centre) -> WorkCentre:
    centre = get(op, code, fld="code", lock=True)
    for f, v in _values(spec).items():
        before = getattr(centre, f)
        if before != v:
            op.change("work_centre", centre.code, f, _shown(before), _shown(v))
            setattr(centre, f, v)
    if not op.changes:
        op.warn("no_change", f"{centre.code} already has these values")
    return centre


def _shown(value: Any) -> Any:
    if isinstance(value, list):
        return "; ".join(f"{','.join(s['days'])} {s['start']}-{s['end']}"
                         if isinstance(s, dict) else str(s) for s in value) or "none"
    return value


def listing(op: Op, query: str | None) -> list[WorkCentre]:
    stmt = select(WorkCentre).order_by(WorkCentre.code).limit(500)
    if query:
        like = f"%{query.lower()}%"
        stmt = stmt.where(or_(func.lower(WorkCentre.code).like(like),
                              func.lower(WorkCentre.name).like(like)))
    return list(op.session.scalars(stmt))


def calendar_of(op: Op | None, centre: WorkCentre) -> cal.Calendar:
    """The centre's working time, built once per content within an operation (its
    per-day intervals are cached on it, so a scheduler asking a thousand times pays once)."""
    key = ("floor.calendar", centre.id, repr(centre.calendar), repr(centre.closed_dates),
           centre.time_zone)
    cache: dict[Any, Any] = op.cache if op is not None else {}
    found: cal.Calendar | None = cache.get(key)
    if found is None:
        found = cal.Calendar(cal.week_of(centre.calendar), cal.closed_of(centre.closed_dates),
                             cal.zone_of(centre.time_zone))
        cache[key] = found
    return found
