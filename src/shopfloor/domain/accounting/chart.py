"""Which account each kind of value goes to.

A role is what the value is to an accountant (inventory, goods received not invoiced, cost
of goods sold ...); a company may point a role at its own account, for every location and
kind of item or only for one location or one kind. The defaults are a chart an accountant
recognises and that balances from the first movement, so nothing needs setting up first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import select, true

from shopfloor.domain.accounting import stamp
from shopfloor.domain.base import period_lock
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.store.prepared import Prepared, connection_of
from shopfloor.store.tables import AccountRule, Location

Kind = Literal["asset", "liability", "equity", "expense"]


@dataclass(frozen=True)
class Account:
    code: str
    name: str
    kind: Kind


# role -> default account; inventory's default depends on the kind of item
DEFAULTS: dict[str, Account] = {
    "inventory": Account("1310", "Inventory: raw materials", "asset"),
    "wip": Account("1320", "Inventory: work in progress", "asset"),
    "payable": Account("2000", "Accounts payable", "liability"),
    "grni": Account("2110", "Goods received not invoiced", "liability"),
    "landed_costs": Account("2120", "Landed costs (clearing)", "liability"),
    "opening": Account("3900", "Opening stock", "equity"),
    "cogs": Account("5000", "Cost of goods sold", "expense"),
    "adjustments": Account("5100", "Stock adjustments and write-offs", "expense"),
    "scrap": Account("5110", "Scrap", "expense"),
    "revaluation": Account("5120", "Stock revaluation", "expense"),
    "price_variance": Account("5200", "Purchase price variance", "expense"),
    "labour_absorbed": Account("5300", "Labour and overhead absorbed", "expense"),
    "exchange": Account("7900", "Exchange differences", "expense"),
    "rounding": Account("7990", "Rounding", "expense"),
}
KIND_DEFAULTS: dict[tuple[str, str], Account] = {
    ("inventory", "product"): Account("1330", "Inventory: finished goods", "asset"),
    ("inventory", "intermediate"): Account("1325", "Inventory: semi-finished goods", "asset"),
}
ROLES = tuple(DEFAULTS)
STOCK_ROLE = "inventory"
"""The role whose accounts hold the stock's value: their balance is the valuation (work in
progress is value that has left stock for a manufacturing order, not stock)."""


@dataclass
class Chart:
    """The rules of one database, read once per operation: the most specific rule for a
    (role, location, kind of item) wins, then the role's rule for all, then the default."""

    rules: dict[tuple[str, int | None, str | None], Account]
    found: dict[tuple[str, int | None, str | None], Account] = field(default_factory=dict)
    """What `account` answered, by its arguments (a document asks the same one per line)."""

    def account(self, role: str, location_id: int | None = None,
                item_kind: str | None = None) -> Account:
        asked = (role, location_id, item_kind)
        known = self.found.get(asked)
        if known is None:
            known = self.found[asked] = self._account(role, location_id, item_kind)
        return known

    def _account(self, role: str, location_id: int | None,
                 item_kind: str | None) -> Account:
        for key in ((role, location_id, item_kind), (role, location_id, None),
                    (role, None, item_kind), (role, None, None)):
            found = self.rules.get(key)
            if found is not None:
                return found
        if item_kind is not None and (role, item_kind) in KIND_DEFAULTS:
            return KIND_DEFAULTS[(role, item_kind)]
        return DEFAULTS[role]

    def names(self) -> dict[str, Account]:
        """Every account the chart can post to, by code."""
        out = {a.code: a for a in (*DEFAULTS.values(), *KIND_DEFAULTS.values())}
        out.update({a.code: a for a in self.rules.values()})
        return out


def kind_of(role: str) -> Kind:
    return DEFAULTS[role].kind


_LOCK = select(period_lock.LOCKS.c.lock_date.label("lock_date")).order_by(
    period_lock.LOCKS.c.id.desc()).limit(1).scalar_subquery()
_NOW = select(_LOCK.label("lock_date"), stamp.STAMP.label("stamp")).subquery("books")
_RULES = Prepared(select(_NOW.c.lock_date, _NOW.c.stamp, *(AccountRule.__table__.c[k] for k in (
    "role", "location_id", "item_kind", "code", "name"))).select_from(
    _NOW.outerjoin(AccountRule.__table__, true())))
"""Read with the period lock every entry is checked against and the books' stamp
(stamp.py): one round trip for the three, plain rows, compiled once (a lone row of NULLs
where no rule is set)."""


def chart(op: Op) -> Chart:
    """The rules once per operation: an apply's as its process last read them while the
    books' stamp is the same (confirmed in its transaction), anything else's read."""
    found = op.cache.get(Chart)
    if isinstance(found, Chart):
        return found
    kept = stamp.kept(op)
    if kept is not None:
        session = op.session
        period_lock.remember(op, kept.lock, lambda: stamp.recheck(session))
        made: Chart = kept.chart
        op.cache[Chart] = made
        return made
    read = _RULES.all(connection_of(op.session), {})
    if read:
        period_lock.remember(op, read[0].lock_date)
    rules = {(r.role, r.location_id, r.item_kind): Account(r.code, r.name, kind_of(r.role))
             for r in read if r.role is not None}
    made = op.cache[Chart] = Chart(rules)
    if read:
        stamp.keep(op, read[0].stamp, made, read[0].lock_date)
    return made


@dataclass(frozen=True)
class RuleSpec:
    role: str
    code: str
    name: str
    location: str | None = None
    item_kind: str | None = None


def set_rules(op: Op, specs: list[RuleSpec]) -> list[dict[str, Any]]:
    """Point roles at accounts. A code already used by another role keeps its name (one
    account, one name); a rule equal to the default is stored all the same, so a later
    change of the defaults never moves a company's books."""
    stamp.bump(op)
    seen = chart(op).names()
    out = []
    for i, s in enumerate(specs):
        if s.role not in DEFAULTS:
            raise ValidationFailed(f"unknown role {s.role!r}; one of {', '.join(ROLES)}",
                                   field=f"accounts[{i}].role")
        other = seen.get(s.code)
        if other is not None and other.kind != kind_of(s.role):
            raise ValidationFailed(
                f"account {s.code} is {other.name!r}, a{'n' if other.kind[0] in 'ae' else ''} "
                f"{other.kind} account; {s.role} posts to {kind_of(s.role)} accounts",
                field=f"accounts[{i}].code")
        location_id = None
        if s.location is not None:
            loc = op.session.scalar(select(Location).where(Location.code == s.location))
            if loc is None:
                raise NotFound(f"no location {s.location!r}", field=f"accounts[{i}].location")
            location_id = loc.id
        row = op.session.scalar(select(AccountRule).where(
            AccountRule.role == s.role, AccountRule.location_id.is_(None) if location_id is None
            else AccountRule.location_id == location_id,
            AccountRule.item_kind.is_(None) if s.item_kind is None
            else AccountRule.item_kind == s.item_kind))
        before = chart(op).account(s.role, location_id, s.item_kind)
        if row is None:
            row = AccountRule(role=s.role, location_id=location_id, item_kind=s.item_kind,
                              code=s.code, name=s.name)
            op.session.add(row)
        else:
            row.code, row.name = s.code, s.name
        where = "/".join(x for x in (s.role, s.location, s.item_kind) if x)
        op.change("account", where, "account", f"{before.code} {before.name}",
                  f"{s.code} {s.name}")
        seen[s.code] = Account(s.code, s.name, kind_of(s.role))
        out.append({"role": s.role, "location": s.location, "item_kind": s.item_kind,
                    "code": s.code, "name": s.name})
    op.cache.pop(Chart, None)
    return out


def listed(op: Op) -> list[dict[str, Any]]:
    """Every role with its account for all, then each specific rule."""
    c = chart(op)
    codes = {loc.id: loc.code for loc in op.session.scalars(select(Location))}
    out: list[dict[str, Any]] = [
        {"role": r, "location": None, "item_kind": None, "code": c.account(r).code,
         "name": c.account(r).name, "kind": kind_of(r)} for r in ROLES]
    for (role, kind), a in KIND_DEFAULTS.items():
        if (role, None, kind) not in c.rules:
            out.append({"role": role, "location": None, "item_kind": kind,
                        "code": a.code, "name": a.name, "kind": a.kind})
    for (rule_role, loc, rule_kind), a in sorted(c.rules.items(), key=lambda kv: str(kv[0])):
        if loc is None and rule_kind is None:
            continue
        out.append({"role": rule_role, "location": codes.get(loc) if loc else None,
                    "item_kind": rule_kind, "code": a.code, "name": a.name, "kind": a.kind})
    return out
