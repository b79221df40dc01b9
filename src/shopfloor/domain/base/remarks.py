"""A document's notes and the partner's own reference for it (the supplier's order
number, the customer's PO number): what people write on a document besides its lines.

One rule for every document kind that has both (purchase, sales and manufacturing orders,
returns), so each records its changes alike and a reference reads the same everywhere:
None leaves a value as it is, an empty text clears it.
"""

from __future__ import annotations

from typing import Protocol

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ValidationFailed

MAX_REFERENCE = 100
MAX_NOTES = 2000


class Remarked(Protocol):
    number: str
    notes: str | None
    reference: str | None


def _reference(text: str) -> str | None:
    text = text.strip()
    if len(text) > MAX_REFERENCE:
        raise ValidationFailed(f"a reference has at most {MAX_REFERENCE} characters",
                               field="reference")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValidationFailed("a reference is one line of text", field="reference")
    return text or None


def _notes(text: str) -> str | None:
    if len(text) > MAX_NOTES or "\x00" in text:
        raise ValidationFailed(f"notes are text of at most {MAX_NOTES} characters",
                               field="notes")
    return text if text.strip() else None


def remark(op: Op, entity: str, doc: Remarked, *, notes: str | None = None,
           reference: str | None = None) -> None:
    """Set what was given, recording each change for the preview and the log."""
    if notes is not None:
        now = _notes(notes)
        op.change(entity, doc.number, "notes", doc.notes, now)
        doc.notes = now
    if reference is not None:
        ref = _reference(reference)
        op.change(entity, doc.number, "reference", doc.reference, ref)
        doc.reference = ref
