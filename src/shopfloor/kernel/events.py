"""The kinds of event the outbox records, spelt once.

A webhook subscribes to some of them, the event list filters by them, and the code that
writes an event names its member: a misspelt type is a type error, not a subscription
that never fires.
"""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    operation_applied = "operation.applied"
    """A write applied: data carries operation_id, tool, summary, actor."""
    job_finished = "job.finished"
    """A background job reached succeeded, failed or cancelled."""
    proposal_created = "proposal.created"
    """A write held for approval: data carries proposal_id, tool, summary, actor."""
    proposal_decided = "proposal.decided"
    """A proposal approved, rejected or gone stale: data carries proposal_id, status,
    decided_by (and operation_id once approved)."""
    alert_changed = "alert.changed"
    """What an alert resource shows changed: data carries alert, uri, count."""


EVENT_TYPES: tuple[str, ...] = tuple(EventType)
