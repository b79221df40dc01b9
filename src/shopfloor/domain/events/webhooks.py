"""Webhooks: made with a secret shown once, retired without losing their history."""

from __future__ import annotations

import base64
import secrets
import uuid
from collections.abc import Sequence

from sqlalchemy import func, select, update

from shopfloor.domain.base.context import Op
from shopfloor.domain.events.addresses import checked_url
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.kernel.events import EVENT_TYPES
from shopfloor.kernel.statuses import Delivery
from shopfloor.store.tables import Webhook, WebhookDelivery

MAX_WEBHOOKS = 100
UNASSIGNED = "(assigned when applied: on approval, for a proposal)"
"""What a preview calls the webhook: its id is drawn at random when it is made, so any id
a preview showed would not be the one an apply (or a proposal's approval) makes."""


def shown_id(op: Op, hook: Webhook) -> str:
    return UNASSIGNED if op.preview else hook.id


def new_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def create(op: Op, url: str, events: Sequence[str]) -> Webhook:
    url = checked_url(url, allow_private=bool(op.options.get("webhook_allow_private")))
    wanted = list(dict.fromkeys(events))
    unknown = [e for e in wanted if e not in EVENT_TYPES]
    if unknown or not wanted:
        raise ValidationFailed(f"events: choose from {', '.join(EVENT_TYPES)}",
                               field="events")
    live = op.session.scalar(select(func.count()).select_from(Webhook)
                             .where(Webhook.deleted_at.is_(None))) or 0
    if live >= MAX_WEBHOOKS:
        raise ValidationFailed(f"at most {MAX_WEBHOOKS} webhooks; delete one first",
                               field="url")
    hook = Webhook(id=f"wh_{uuid.uuid4().hex[:24]}", url=url, events=wanted,
                   secret=new_secret(), created_by=op.actor, created_at=op.now)
    op.session.add(hook)
    op.change("webhook", shown_id(op, hook), "url", None, url)
    op.change("webhook", shown_id(op, hook), "events", None, ", ".join(wanted))
    return hook


def get(op: Op, webhook_id: str, *, live: bool = True) -> Webhook:
    hook = op.session.get(Webhook, webhook_id)
    if hook is None or (live and hook.deleted_at is not None):
        raise NotFound(f"no webhook {webhook_id!r}", field="webhook_id")
    return hook


def delete(op: Op, webhook_id: str) -> Webhook:
    """Stops it: nothing more is sent, what waits is given up; the history stays."""
    hook = get(op, webhook_id)
    hook.deleted_at = op.now
    op.change("webhook", hook.id, "deleted", "no", "yes")
    op.session.execute(update(WebhookDelivery).where(
        WebhookDelivery.webhook_id == hook.id,
        WebhookDelivery.status.in_([Delivery.pending, Delivery.sending]))
        .values(status=Delivery.failed, worker=None, lease_until=None,
                last_error="the webhook was deleted"))
    return hook
