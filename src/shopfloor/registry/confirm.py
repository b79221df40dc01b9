"""When an apply asks a person first, and what it asks them (DESIGN section 3,
"Confirmation through the host").

An agent that calls a write with `preview: false` and no token would apply blind. Where
the client can put a question to the person (MCP elicitation), the surface previews, and
these rules decide whether the preview goes to the person before anything applies: the
deployment's `confirm_writes` policy, the tool's declared facts and what this call's own
preview would do. The question is the preview said in words, so that what the person
agrees to is what applies (the apply carries the preview's token and is refused as stale
if anything the preview read has changed).

Plain functions over the preview payload the registry returns: no database, no surface.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from shopfloor.kernel.errors import ValidationFailed


class ConfirmWrites(StrEnum):
    """The `confirm_writes` setting: which applies ask the person first."""

    destructive = "destructive"
    """Destructive tools, and any call whose own preview lowers stock (the default)."""
    all = "all"
    """Every apply without a token."""
    none = "none"
    """None: the previous contract (apply as called)."""


def policy(value: str) -> ConfirmWrites:
    try:
        return ConfirmWrites(value.strip().lower())
    except ValueError:
        choices = ", ".join(c.value for c in ConfirmWrites)
        raise ValidationFailed(f"confirm_writes must be one of {choices}, not {value!r}",
                               field="confirm_writes") from None


QUANTITY_FIELDS = frozenset({"on_hand"})
"""The change fields that are a stock quantity: a drop in one is stock lowered."""


def _number(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def lowers_stock(preview: dict[str, Any]) -> bool:
    """Whether this preview takes stock away anywhere (a location, a lot): an on-hand
    figure that ends lower than it started. An empty start counts as zero."""
    for change in preview.get("changes") or []:
        if change.get("field") not in QUANTITY_FIELDS:
            continue
        before = _number(change.get("before")) or Decimal(0)
        after = _number(change.get("after"))
        if after is not None and after < before:
            return True
    return False


def asks(rule: ConfirmWrites, *, destructive: bool, preview: dict[str, Any]) -> bool:
    """Whether this apply goes to the person first. A preview that cannot apply (a
    blocking warning: no token) is never put to them: the apply is refused on its own."""
    if rule is ConfirmWrites.none or not preview.get("preview_token"):
        return False
    if rule is ConfirmWrites.all:
        return True
    return destructive or lowers_stock(preview)


def in_words(preview: dict[str, Any], *, limit: int = 40,
             clean: Callable[[str], str] = str) -> str:
    """The preview as a person reads it in a dialog: what it is, each change as
    `record field: before -> after` (stock figures as `stock ...`), then the warnings.
    Past `limit` changes the rest are counted, not listed (a dialog is not a report).
    `clean` makes each stored value safe to show (a surface's escaping: a name holding a
    newline must not add a line of its own to the question)."""
    def _said(value: Any) -> str:
        return "(none)" if value is None or value == "" else clean(str(value))

    title = _said(preview.get("title") or preview.get("tool"))
    lines = [f"{title}: {_said(preview.get('summary'))}"]
    changes = preview.get("changes") or []
    if changes:
        lines.append("")
        lines.append("What changes:")
        for change in changes[:limit]:
            entity = str(change.get("entity") or "")
            key = _said(change.get("key"))
            record = f"{entity} {key}".strip()
            lines.append(f"- {record} {_said(change.get('field'))}: "
                         f"{_said(change.get('before'))} -> {_said(change.get('after'))}")
        if len(changes) > limit:
            lines.append(f"- ... and {len(changes) - limit} more changes")
    warnings = preview.get("warnings") or []
    if warnings:
        lines.append("")
        lines.append("Warnings:")
        lines += [f"- {_said(w.get('message'))}" for w in warnings]
    lines.append("")
    lines.append("Apply this now? Nothing changes unless you confirm.")
    return "\n".join(lines)
