"""Wiring: settings -> store -> registry with the whole catalogue. Every surface starts here.

Imports are inside the functions: `shopfloor mcp` lists the catalogue before it touches
the database, and a command that needs neither should not pay for either.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shopfloor.app.described import describe, describe_catalogue

__all__ = ["describe", "describe_catalogue"]

if TYPE_CHECKING:
    from shopfloor.app.delivery import Deliverer
    from shopfloor.app.settings import Settings
    from shopfloor.app.worker import Worker
    from shopfloor.domain.base.context import Op
    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry
    from shopfloor.registry.tool import Tool
    from shopfloor.store.engine import Store


def stored(store: Store, *keys: str) -> dict[str, str]:
    """Settings the database keeps (`meta` rows), read with one plain statement: no ORM
    session, so a process that only reads them has no mappers to configure for it."""
    from sqlalchemy import select

    from shopfloor.store.tables import Meta

    table = Meta.__table__
    with store.engine.connect() as conn:
        return {k: v for k, v in conn.execute(select(table.c.key, table.c.value)
                                              .where(table.c.key.in_(keys)))}


def stamped(store: Store) -> None:
    """The books' stamp (domain/accounting/stamp.py), given a database without one."""
    from shopfloor.domain.accounting import stamp

    with store.writing() as session:
        stamp.ensure(session.connection())
        session.commit()


def load_secret(store: Store) -> str:
    """The signing secret lives in the database, so every instance sharing it agrees."""
    import secrets

    from sqlalchemy import select

    from shopfloor.store.tables import Meta

    def get_or_create() -> str:
        with store.writing() as session:
            row = session.scalar(select(Meta).where(Meta.key == "secret"))
            if row is None:
                row = Meta(key="secret", value=secrets.token_urlsafe(32))
                session.add(row)
                session.commit()
            return row.value

    return store.retrying(get_or_create)


ISSUER = "shopfloor"
AUDIENCE = "shopfloor-api"


def load_token_names(store: Store) -> tuple[str, str]:
    """The issuer and audience this deployment's own tokens name and must name: stored
    beside the secret (`init` writes them; a database from before gets them then), so
    every instance agrees, and a token from anywhere else is told apart even when it is
    signed with the same key."""
    from sqlalchemy import select
    from sqlalchemy.exc import IntegrityError

    from shopfloor.store.tables import Meta

    wanted = {"jwt_issuer": ISSUER, "jwt_audience": AUDIENCE}

    def get_or_create() -> dict[str, str]:
        with store.writing() as session:
            rows = {m.key: m.value for m in
                    session.scalars(select(Meta).where(Meta.key.in_(wanted)))}
            missing = {k: v for k, v in wanted.items() if k not in rows}
            if missing:
                session.add_all(Meta(key=k, value=v) for k, v in missing.items())
                session.commit()
            return {**missing, **rows}

    try:
        names = store.retrying(get_or_create)
    except IntegrityError:  # another instance wrote them first: read theirs
        names = store.retrying(get_or_create)
    return names["jwt_issuer"], names["jwt_audience"]


def load_company_currency(store: Store, wanted: str) -> str:
    """The currency the books are kept in. Written once, at a database's first open, from
    SHOPFLOOR_CURRENCY, so a dollar company's ledger is in dollars from its first row (it
    was always EUR before, whatever the setting said, and a dollar supplier's receipt asked
    for a dollar rate); read back by every instance after that, since a ledger's currency
    cannot change under its rows. A setting that disagrees later is logged, not obeyed."""
    import logging

    from sqlalchemy import select
    from sqlalchemy.exc import IntegrityError

    from shopfloor.domain.buying.currencies import COMPANY_KEY, ISO_4217
    from shopfloor.store.tables import Meta

    code = wanted.strip().upper()
    if code not in ISO_4217:
        raise ValueError(f"SHOPFLOOR_CURRENCY={wanted!r} is not an ISO 4217 currency code "
                         "(three letters, e.g. EUR, USD)")

    def get_or_create() -> str:
        with store.writing() as session:
            row = session.scalar(select(Meta).where(Meta.key == COMPANY_KEY))
            if row is None:
                row = Meta(key=COMPANY_KEY, value=code)
                session.add(row)
                session.commit()
            return row.value

    try:
        kept = store.retrying(get_or_create)
    except IntegrityError:  # another instance wrote it first: read theirs
        kept = store.retrying(get_or_create)
    if kept != code:
        logging.getLogger("shopfloor").warning(
            "SHOPFLOOR_CURRENCY is %s but this database keeps its books in %s (set when it "
            "was created); its money is booked in %s", code, kept, kept)
    return kept


def shown_as_booked(registry: Registry, settings: Settings) -> Settings:
    """The settings the screens and paper use: money in the books' currency (the
    database's), whatever SHOPFLOOR_CURRENCY says now."""
    from dataclasses import replace

    books = registry.options.get("company_currency")
    return replace(settings, currency=books) if books and books != settings.currency \
        else settings


def local_actor(settings: Settings) -> Actor:
    """Who the CLI and MCP stdio act as; unset means nobody, so every call is refused."""
    from shopfloor.kernel.errors import Unauthenticated
    from shopfloor.registry.actor import Actor

    if not settings.local_actor.strip() or not settings.local_role.strip():
        raise Unauthenticated("no local actor: set SHOPFLOOR_LOCAL_ACTOR and "
                              "SHOPFLOOR_LOCAL_ROLE")
    return Actor.of(settings.local_actor, settings.local_role)


def catalogue_tools() -> list[Tool]:
    """Every tool, in catalogue order, without a database: what tools/list shows."""
    from shopfloor.tools import catalogue

    return [t for toolset in catalogue() for t in toolset]


def describe_catalogue_in_child() -> Callable[[], list[dict[str, Any]]]:
    """The catalogue's cached description (app/described.py) when there is one; else
    start describing it in a forked child (which also writes the cache) and return a
    function that waits for it (thread-safe; the first call reaps the child, later ones
    return the same list).

    For `shopfloor mcp`: the catalogue (pydantic models, SQLAlchemy tables, schemas) loads
    on one core while the server loads the MCP SDK on another, so tools/list is ready
    about as soon as the SDK is. The child only imports and describes (no database, no
    stdio) and leaves with os._exit. Where fork is unavailable, or the child fails, the
    description is built in this process instead: same code, same result.
    """
    import os
    import sys
    import threading

    from shopfloor.app.described import cached_catalogue, cached_only

    cached = cached_only()
    if cached is not None:  # (every start but the first after the code changed)
        return lambda: cached
    if sys.platform != "linux":
        return cached_catalogue
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # out of processes or memory: do it here, later
        os.close(read_end)
        os.close(write_end)
        return describe_catalogue
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_end)
            quiet = os.open(os.devnull, os.O_RDWR)
            os.dup2(quiet, 0)  # stdin and stdout are the parent's MCP channel
            os.dup2(quiet, 1)
            with os.fdopen(write_end, "wb") as out:
                out.write(json.dumps(cached_catalogue()).encode())  # (and cached)
            code = 0
        except BrokenPipeError:
            pass  # the server is gone: nobody to tell
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(write_end)
    lock = threading.Lock()
    described: list[list[dict[str, Any]]] = []

    def result() -> list[dict[str, Any]]:
        with lock:
            if not described:
                with os.fdopen(read_end, "rb") as pipe:
                    data = pipe.read()
                _, status = os.waitpid(pid, 0)
                try:
                    described.append(json.loads(data) if status == 0 else describe_catalogue())
                except ValueError:
                    described.append(describe_catalogue())
            return described[0]

    return result


def open_registry(settings: Settings, *, store: Store | None = None,
                  lazy: bool = False) -> Registry:
    """`lazy`: each tool's module is imported when the tool is first named (all of them
    once the tools are listed), for a process that makes one call."""
    from datetime import timedelta

    from shopfloor.registry.registry import Registry
    from shopfloor.store.engine import Store
    from shopfloor.store.migrate import upgrade

    tools = [] if lazy else catalogue_tools()
    store = store or Store(settings.database_url)
    upgrade(store)
    from shopfloor.domain.accounting import stamp
    from shopfloor.domain.base.books import KEY as COMPANY_KEY  # (not currencies: its tables)

    known = stored(store, "secret", COMPANY_KEY, stamp.KEY)  # (written once: read, as a rule)
    if stamp.KEY not in known:
        store.retrying(lambda: stamped(store))
    secret = settings.secret or known.get("secret") or load_secret(store)
    wanted = settings.currency.strip().upper()
    books = known[COMPANY_KEY] if known.get(COMPANY_KEY) == wanted else \
        load_company_currency(store, settings.currency)
    registry = Registry(
        store,
        secret=secret.encode(),
        preview_ttl=timedelta(minutes=settings.preview_ttl_minutes),
        require_preview_token=settings.require_preview_token,
        options={"webhook_allow_private": settings.webhook_allow_private,
                 "company_currency": books},
        finishers=(post_journal,),
    )
    if lazy:
        from shopfloor.tools import every_tool, tools_beside

        registry.add_lazily(tools_beside, every_tool)
    else:
        registry.add(tools)
    post_history(store, registry.clock)
    return registry


def post_journal(op: Op) -> None:
    """Every write's journal entries (imported on the first write: a read pays nothing),
    once the period lock has checked what they would post."""
    if not _POSTING:  # (an import statement per write costs a tenth of the journal's time)
        from shopfloor.domain.accounting import journal, lock

        _POSTING.extend((lock.check, journal.post))
    for step in _POSTING:
        step(op)


_POSTING: list[Callable[[Op], None]] = []


def post_history(store: Store, clock: Callable[[], Any]) -> None:
    """A database with movements and no journal gets its history's entries, once (two
    one-row reads on every other open)."""
    from shopfloor.domain.accounting import history

    with store.reading() as session:
        if not history.needed(session):
            return
    from shopfloor.domain.accounting import journal
    from shopfloor.domain.base.context import Op

    with store.writing() as session:
        if history.needed(session):  # another process may have posted it meanwhile
            journal.post_history(Op(session, "history", clock(), dialect=store.dialect))
            session.commit()


def worker_for(registry: Registry, settings: Settings | None = None, **options: Any) -> Worker:
    """A worker for every job kind the catalogue declares (their runners built at its
    first job: see `Worker.kinds`)."""
    from datetime import timedelta

    from shopfloor.app.worker import Worker

    if settings is not None:
        options.setdefault("heartbeat", settings.job_heartbeat_seconds)
        options.setdefault("stale_after", timedelta(seconds=settings.job_stale_seconds))
        options.setdefault("delivery", deliverer_for(registry, settings))
    options.setdefault("clock", lambda: registry.clock())  # read at each use: a test moves it
    return Worker(registry.store, registry.job_runners, **options)


def deliverer_for(registry: Registry, settings: Settings, *, name: str | None = None
                  ) -> Deliverer:
    """Webhook delivery (and the alert check) as the settings say."""
    import os
    import socket
    import threading
    from datetime import timedelta

    from shopfloor.app.alerts import AlertCheck
    from shopfloor.app.delivery import Deliverer

    name = name or f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident() % 10000}"
    return Deliverer(registry.store, name=name, allow_private=settings.webhook_allow_private,
                     lease=timedelta(seconds=settings.webhook_lease_seconds),
                     timeout=settings.webhook_timeout_seconds,
                     also=AlertCheck(registry))
