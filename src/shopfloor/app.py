"""Wiring: settings -> store -> registry with the whole catalogue. Every surface starts here."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from shopfloor.registry.actor import Actor
from shopfloor.registry.errors import Unauthenticated
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.store.engine import Store
from shopfloor.store.migrate import upgrade
from shopfloor.store.tables import Meta

if TYPE_CHECKING:
    from shopfloor.jobs.worker import Worker


def load_secret(store: Store) -> str:
    """The signing secret lives in the database, so every instance sharing it agrees."""
    def get_or_create() -> str:
        with store.writing() as session:
            row = session.scalar(select(Meta).where(Meta.key == "secret"))
            if row is None:
                row = Meta(key="secret", value=secrets.token_urlsafe(32))
                session.add(row)
                session.commit()
            return row.value

    return store.retrying(get_or_create)


def local_actor(settings: Settings) -> Actor:
    """Who the CLI and MCP stdio act as; unset means nobody, so every call is refused."""
    if not settings.local_actor.strip() or not settings.local_role.strip():
        raise Unauthenticated("no local actor: set SHOPFLOOR_LOCAL_ACTOR and "
                              "SHOPFLOOR_LOCAL_ROLE")
    return Actor.of(settings.local_actor, settings.local_role)


def open_registry(settings: Settings, *, store: Store | None = None) -> Registry:
    from shopfloor.tools import catalogue

    store = store or Store(settings.database_url)
    upgrade(store)
    secret = settings.secret or load_secret(store)
    registry = Registry(
        store,
        secret=secret.encode(),
        preview_ttl=timedelta(minutes=settings.preview_ttl_minutes),
        require_preview_token=settings.require_preview_token,
    )
    for toolset in catalogue():
        registry.add(toolset)
    return registry


def worker_for(registry: Registry, settings: Settings | None = None, **options: Any) -> Worker:
    """A worker for every job kind: MRP, and each write-job tool of the registry."""
    from shopfloor.jobs.kinds import KINDS
    from shopfloor.jobs.worker import Worker

    if settings is not None:
        options.setdefault("heartbeat", settings.job_heartbeat_seconds)
        options.setdefault("stale_after", timedelta(seconds=settings.job_stale_seconds))
    return Worker(registry.store, {**KINDS, **registry.job_runners()}, **options)
