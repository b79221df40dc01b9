"""The status words of every document kind, defined once.

The domain moves documents between these states, the tools declare them as the values a
status field takes, the admin and the cards read the words and their labels from here
(`vocabulary()` is what a page or card receives), and messages say them through `said`.
A word is a `StrEnum` member, so it is stored and compared as the plain string it always
was, and a misspelling is a type error instead of a document stuck in a state nobody has.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class PO(StrEnum):
    """A purchase order: draft -> open -> partially received -> received; or closed short,
    or cancelled."""

    draft = "draft"
    open = "open"
    partially_received = "partially_received"
    received = "received"
    closed = "closed"
    cancelled = "cancelled"


class SO(StrEnum):
    """A sales order: open -> partially fulfilled -> fulfilled; or closed short, or
    cancelled."""

    open = "open"
    partially_fulfilled = "partially_fulfilled"
    fulfilled = "fulfilled"
    closed = "closed"
    cancelled = "cancelled"


class MO(StrEnum):
    """A manufacturing order: planned -> in progress -> done; or closed short, or
    cancelled."""

    planned = "planned"
    in_progress = "in_progress"
    done = "done"
    closed = "closed"
    cancelled = "cancelled"


class Step(StrEnum):
    """An operation of a manufacturing order: planned -> in progress (time logged) ->
    done (reported finished, or finished with its order); skipped when the order's
    completion says it was not done."""

    planned = "planned"
    in_progress = "in_progress"
    done = "done"
    skipped = "skipped"


class JobState(StrEnum):
    """A background job: queued -> running -> succeeded | failed | cancelled."""

    queued = "queued"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"


class ProposalState(StrEnum):
    """A write held for approval: pending -> approved | rejected | stale (what it read
    changed before anyone approved it; nothing was applied) | withdrawn (its proposer
    may no longer do it: lowered below the role it needs, or disabled)."""

    pending = "pending"
    approved = "approved"
    rejected = "rejected"
    stale = "stale"
    withdrawn = "withdrawn"


class Delivery(StrEnum):
    """A webhook delivery of one event: pending -> sending -> delivered; back to pending
    after a failed try (or a lost worker), failed once the retries are spent."""

    pending = "pending"
    sending = "sending"
    delivered = "delivered"
    failed = "failed"


OPEN_PO: tuple[PO, ...] = (PO.draft, PO.open, PO.partially_received)
"""Still expecting goods: counts as supply, blocks deleting its items."""
CLOSABLE_PO: tuple[PO, ...] = (PO.open, PO.partially_received)
"""May be closed short (a draft is cancelled instead)."""
OPEN_SO: tuple[SO, ...] = (SO.open, SO.partially_fulfilled)
"""Still to ship: commits stock; may be closed short."""
CLOSABLE_SO = OPEN_SO
OPEN_MO: tuple[MO, ...] = (MO.planned, MO.in_progress)
"""Still to make: commits its components; may be closed short."""
CLOSABLE_MO = OPEN_MO
OPEN_STEP: tuple[Step, ...] = (Step.planned, Step.in_progress)
"""An operation still to do: it loads its work centre and is scheduled."""
FINISHED_PO: tuple[PO, ...] = (PO.closed, PO.cancelled)
FINISHED_SO: tuple[SO, ...] = (SO.closed, SO.cancelled)
JOB_TERMINAL: tuple[JobState, ...] = (JobState.succeeded, JobState.failed,
                                      JobState.cancelled)
JOB_ACTIVE: tuple[JobState, ...] = (JobState.queued, JobState.running)
DELIVERY_OPEN: tuple[Delivery, ...] = (Delivery.pending, Delivery.sending)
DELIVERY_TERMINAL: tuple[Delivery, ...] = (Delivery.delivered, Delivery.failed)


@dataclass(frozen=True)
class Vocabulary:
    """One document kind's words, in lifecycle order, and which of them are still open
    (work to do) and terminal (nothing more will happen)."""

    kind: str
    words: tuple[str, ...]
    open: tuple[str, ...]
    terminal: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"words": list(self.words), "labels": {w: label(w) for w in self.words},
                "open": list(self.open), "terminal": list(self.terminal)}


VOCABULARIES = (
    Vocabulary("purchase_order", tuple(PO), OPEN_PO, (PO.received, *FINISHED_PO)),
    Vocabulary("sales_order", tuple(SO), OPEN_SO, (SO.fulfilled, *FINISHED_SO)),
    Vocabulary("manufacturing_order", tuple(MO), OPEN_MO, (MO.done, MO.closed, MO.cancelled)),
    Vocabulary("job", tuple(JobState), JOB_ACTIVE, JOB_TERMINAL),
    Vocabulary("proposal", tuple(ProposalState), (ProposalState.pending,),
               (ProposalState.approved, ProposalState.rejected, ProposalState.stale,
                ProposalState.withdrawn)),
    Vocabulary("webhook_delivery", tuple(Delivery), DELIVERY_OPEN, DELIVERY_TERMINAL),
    Vocabulary("operation", tuple(Step), OPEN_STEP, (Step.done, Step.skipped)),
)
BY_KIND = {v.kind: v for v in VOCABULARIES}


def said(status: str) -> str:
    """A status as a person reads it in a sentence: `partially received`, not the stored
    `partially_received` (results keep the stored value, for code)."""
    return str(status).replace("_", " ")


def label(status: str) -> str:
    """A status as a heading or a badge shows it: `Partially received`."""
    text = said(status)
    return text[:1].upper() + text[1:]


def vocabulary() -> dict[str, Any]:
    """Every kind's words and labels, JSON-ready: what the admin and the cards are served,
    so that no status word is spelled in a script or a template."""
    return {v.kind: v.as_json() for v in VOCABULARIES}
