"""The event outbox and the webhooks that receive it (Standard Webhooks)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints
from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.events import webhooks
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import Delivery
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store import outbox
from shopfloor.store.tables import Event, Webhook, WebhookDelivery
from shopfloor.tools.fields import Limit, Out, Page, RowCursor, paged

tools = Toolset("events")

EventName = Literal["operation.applied", "job.finished", "proposal.created",
                    "proposal.decided", "alert.changed"]


def _in_range(cursor: str) -> str:
    """A forged cursor past the columns' ranges is a coded error, not a database one."""
    tx, seq = outbox.parse_position(cursor)
    if tx >= 2**63 or seq >= 2**31:
        raise ValueError("not a cursor this list gave")
    return cursor


EventCursor = Annotated[str, StringConstraints(pattern=r"^[0-9]{1,19}\.[0-9]{1,10}$"),
                        AfterValidator(_in_range),
                        Field(description="where the previous page ended (its next cursor)")]
WebhookId = Annotated[str, StringConstraints(min_length=1, max_length=40,
                                             pattern=r"^[A-Za-z0-9_-]+$")]
Url = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000,
                                       pattern=r"^[^\x00-\x20\x7f]+$")]


class EventQuery(Request):
    types: list[EventName] | None = Field(None, max_length=10)
    cursor: EventCursor | None = None
    limit: Limit = 100


class EventOut(Out):
    id: str
    type: str
    at: datetime
    data: dict[str, Any]


class EventPage(Page):
    events: list[EventOut]


@tools.read("list_events", title="List events", response=EventPage, role=Role.operator,
            description="The event outbox, oldest first; poll on from next_cursor.")
def list_events(op: Op, req: EventQuery) -> EventPage:
    start = outbox.parse_position(req.cursor) if req.cursor else (0, 0)
    rows = outbox.events_after(op.session.connection(), start, req.limit + 1, req.types)
    rows, cursor = paged(rows, req.limit, lambda r: outbox.position_text(r.tx, r.seq))
    if cursor is None and rows:
        cursor = outbox.position_text(rows[-1].tx, rows[-1].seq)
    return EventPage(events=[EventOut(id=r.id, type=r.type, at=r.at, data=r.data)
                             for r in rows], next_cursor=cursor or req.cursor)


class WebhookOut(Out):
    webhook_id: str
    url: str
    events: list[str]
    created_at: datetime
    secret: str | None = Field(None, description="whsec_..., shown once")


def webhook_out(h: Webhook) -> WebhookOut:
    return WebhookOut(webhook_id=h.id, url=h.url, events=list(h.events),
                      created_at=h.created_at)


class CreateWebhook(WriteRequest):
    url: Url
    events: list[EventName] = Field(min_length=1, max_length=10)


@tools.write("create_webhook", title="Create webhook", response=WebhookOut, role=Role.admin,
             destructive=False, undo=Undo.refused("delete the webhook"), open_world=True,
             description="Send these events to url, signed (Standard Webhooks).")
def create_webhook(op: Op, req: CreateWebhook) -> Done[WebhookOut]:
    hook = webhooks.create(op, req.url, req.events)
    once = {} if op.preview else {"secret": hook.secret}
    shown = webhooks.shown_id(op, hook)
    return Done(f"Webhook {shown} to {hook.url}",
                webhook_out(hook).model_copy(update={"webhook_id": shown}), shown_once=once)


class WebhookRef(WriteRequest):
    webhook_id: WebhookId


@tools.write("delete_webhook", title="Delete webhook", response=WebhookOut, role=Role.admin,
             destructive=True, undo=Undo.refused("create a new webhook"),
             description="Stop a webhook; its delivery history stays.")
def delete_webhook(op: Op, req: WebhookRef) -> Done[WebhookOut]:
    hook = webhooks.delete(op, req.webhook_id)
    return Done(f"Webhook {hook.id} deleted", webhook_out(hook))


class WebhookList(Out):
    webhooks: list[WebhookOut]


class NoArgs(Request):
    pass


@tools.read("list_webhooks", title="List webhooks", response=WebhookList, role=Role.admin,
            description="Webhooks and the events each receives.")
def list_webhooks(op: Op, req: NoArgs) -> WebhookList:
    rows = op.session.scalars(select(Webhook).where(Webhook.deleted_at.is_(None))
                              .order_by(Webhook.created_at))
    return WebhookList(webhooks=[webhook_out(h) for h in rows])


DeliveryStatus = Literal["pending", "sending", "delivered", "failed"]


class DeliveryQuery(Request):
    webhook_id: WebhookId | None = None
    status: DeliveryStatus | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


class DeliveryOut(Out):
    webhook_id: str
    event_id: str
    type: str
    status: str
    attempts: int
    next_attempt_at: datetime | None
    last_status: int | None
    last_error: str | None
    delivered_at: datetime | None


class DeliveryPage(Page):
    deliveries: list[DeliveryOut]


@tools.read("list_webhook_deliveries", title="List webhook deliveries",
            response=DeliveryPage, role=Role.admin,
            description="Deliveries, newest first: status, tries, last answer or error.")
def list_webhook_deliveries(op: Op, req: DeliveryQuery) -> DeliveryPage:
    d = WebhookDelivery
    stmt = (select(d, Event.id.label("event_id"), Event.type)
            .join(Event, Event.seq == d.event_seq).order_by(d.id.desc()).limit(req.limit + 1))
    if req.webhook_id:
        webhooks.get(op, req.webhook_id, live=False)
        stmt = stmt.where(d.webhook_id == req.webhook_id)
    if req.status:
        stmt = stmt.where(d.status == req.status)
    if req.cursor:
        stmt = stmt.where(d.id < int(req.cursor))
    rows, cursor = paged(op.session.execute(stmt).all(), req.limit, lambda r: str(r[0].id))
    return DeliveryPage(deliveries=[DeliveryOut(
        webhook_id=r[0].webhook_id, event_id=r.event_id, type=r.type, status=r[0].status,
        attempts=r[0].attempts,
        next_attempt_at=r[0].next_attempt_at if r[0].status == Delivery.pending else None,
        last_status=r[0].last_status, last_error=r[0].last_error,
        delivered_at=r[0].delivered_at) for r in rows], next_cursor=cursor)

