"""The registry: the only path from a surface to the domain.

`invoke(name, args, actor)` checks the role, validates the arguments against the tool's
model, and runs a read, a preview or an apply. Every failure leaves as a coded
`ShopfloorError`; nothing else escapes to a surface.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import (
    Conflict,
    Forbidden,
    Internal,
    ShopfloorError,
    StalePreview,
    ValidationFailed,
)
from shopfloor.kernel.lazy import lazy
from shopfloor.registry import tokens
from shopfloor.registry.actor import Actor
from shopfloor.registry.catalogue import Catalogue
from shopfloor.registry.tool import CONTROL_FIELDS, Done, Tool, WriteRequest
from shopfloor.store.engine import RetryTransaction, Store, is_transient
from shopfloor.store.tracking import fingerprint, start_tracking
from shopfloor.store.violations import unique_violation

if TYPE_CHECKING:
    from shopfloor.registry import proposals, records, write_jobs
    from shopfloor.registry.jobs import JobContext
    from shopfloor.registry.proposals import Also
else:  # a read needs none of these (nor the tables they map): imported on first use
    proposals, records = lazy("shopfloor.registry.proposals"), lazy("shopfloor.registry.records")
    write_jobs = lazy("shopfloor.registry.write_jobs")

log = logging.getLogger("shopfloor.registry")


def utcnow() -> datetime:
    return datetime.now(UTC)


def field_path(loc: Iterable[Any]) -> str | None:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or None


def validation_error(exc: ValidationError) -> ValidationFailed:
    errors = [{"field": field_path(e["loc"]), "message": e["msg"], "type": e["type"]}
              for e in exc.errors(include_url=False, include_input=False)]
    first = errors[0]
    where = f"{first['field']}: " if first["field"] else ""
    return ValidationFailed(f"{where}{first['message']}", field=first["field"],
                            details={"errors": errors})


class Registry(Catalogue):
    """Its tools (`Catalogue`: `add`, `get`, `tools`) and the one way to call them."""

    def __init__(self, store: Store, *, secret: bytes,
                 preview_ttl: timedelta = timedelta(minutes=15),
                 require_preview_token: bool = False, clock: Callable[[], datetime] = utcnow,
                 options: Mapping[str, Any] | None = None,
                 finishers: Sequence[Callable[[Op], None]] = ()) -> None:
        super().__init__()
        self.store = store
        self.finishers = tuple(finishers)  # after every write's flush: the journal
        self.options: Mapping[str, Any] = dict(options or {})
        self._secret = secret
        self.preview_key = self.key("preview")
        self.preview_ttl = preview_ttl
        self.require_preview_token = require_preview_token
        self.clock = clock

    def key(self, purpose: str) -> bytes:
        """A key derived from the deployment secret, one per purpose (jwt, preview...)."""
        return hmac.new(self._secret, purpose.encode(), hashlib.sha256).digest()

    # -- dispatch --------------------------------------------------------------------
    def invoke(self, name: str, args: Mapping[str, Any] | None, actor: Actor) -> dict[str, Any]:
        try:
            tool = self.get(name)
            if not actor.may(tool.facts.role):
                raise Forbidden(
                    f"{name} needs the {tool.facts.role.name} role; "
                    f"{actor.subject} has {_roles(actor)}"
                )
            if tool.facts.decides and actor.needs_approval:
                raise Forbidden(f"{actor.subject}'s own writes are held for approval, so "
                                "it cannot approve or reject proposals",
                                field="proposal_id")
            req = self.parse(tool, args)
            if tool.facts.approves:
                assert isinstance(req, WriteRequest)
                return proposals.approve(self, tool, req, actor)
            if tool.facts.job and not tool.facts.writes:
                return self._start(tool, req, actor)
            if not tool.facts.writes:
                return self._read(tool, req, actor)
            assert isinstance(req, WriteRequest)
            return self._write(tool, req, actor)
        except ShopfloorError:
            raise
        except IntegrityError as exc:
            conflict = unique_violation(exc, args if isinstance(args, Mapping) else {})
            if conflict is None:
                log.exception("integrity error in %s", name)
                raise Internal("internal database error; nothing was written") from exc
            raise conflict from exc
        except SQLAlchemyError as exc:
            if is_transient(exc):
                raise Conflict("the database stayed busy; nothing was written, try again") from exc
            log.exception("database error in %s", name)
            raise Internal("internal database error; nothing was written") from exc
        except Exception as exc:
            log.exception("unexpected error in %s", name)
            raise Internal(f"internal error in {name}; nothing was written") from exc

    def parse(self, tool: Tool, args: Mapping[str, Any] | None) -> BaseModel:
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            raise ValidationFailed("arguments must be a JSON object")
        try:
            return tool.request.model_validate(dict(args))
        except ValidationError as exc:
            raise validation_error(exc) from None

    def _op(self, session: Any, actor: Actor, *, preview: bool = False,
            operation_id: str | None = None) -> Op:
        return Op(session, actor.subject, self.clock(), dialect=self.store.dialect,
                  preview=preview, locks_rows=self.store.locks_rows and not preview,
                  operation_id=operation_id, roles=actor.roles, options=self.options,
                  finishers=self.finishers, catalogue=self)

    def _read(self, tool: Tool, req: BaseModel, actor: Actor) -> dict[str, Any]:
        """A read locks nothing (its session may not even hold a transaction)."""
        with self.store.plain_reading() as session:
            op = Op(session, actor.subject, self.clock(), dialect=self.store.dialect,
                    roles=actor.roles, catalogue=self)
            return tool.handler(op, req).model_dump(mode="json")  # type: ignore[no-any-return]

    def _start(self, tool: Tool, req: BaseModel, actor: Actor) -> dict[str, Any]:
        """Queue a job: one short write transaction, committed; the work happens later."""
        def run() -> dict[str, Any]:
            with self.store.writing() as session:
                result = tool.handler(self._op(session, actor), req)
                payload: dict[str, Any] = result.model_dump(mode="json")
                session.commit()
                return payload

        return self.store.retrying(run)

    # -- writes ----------------------------------------------------------------------
    def recorded(self, idempotency_key: str) -> bool:
        """Whether an apply under this key is already recorded: its repeat replays it."""
        with self.store.plain_reading() as session:
            return records.key_row(session, idempotency_key) is not None

    def _write(self, tool: Tool, req: WriteRequest, actor: Actor) -> dict[str, Any]:
        args = req.model_dump(mode="json", exclude=set(CONTROL_FIELDS))
        # only a token, a proposal or a key reads the digest (~0.1 ms for 100 lines)
        digest = tokens.args_hash(args) if (req.preview or req.preview_token or actor.needs_approval
                                            or req.idempotency_key is not None
                                            or tool.facts.holds) else ""
        if req.preview:
            return self.preview(tool, req, actor, args, digest)
        if actor.needs_approval or proposals.held(self, tool, req, actor, args, digest):
            return proposals.propose(self, tool, req, actor, args, digest)
        claims = None
        if req.preview_token:
            claims = tokens.verified(self.preview_key, req.preview_token)
        elif tool.facts.destructive and self.require_preview_token:
            raise ValidationFailed(
                f"{tool.name} is destructive and this deployment requires a preview_token: "
                "preview first, then apply with its token",
                field="preview_token",
            )
        return self.store.retrying(lambda: self.apply_once(tool, req, actor, args, digest, claims))

    def _dry_run(self, session: Any, tool: Tool, req: WriteRequest, actor: Actor) -> None:
        """A write job applied without a preview refuses what it cheaply can now, with its
        coded error, and queues the rest: its request's `precheck(op)`, if it has one
        (a file's shape and cells, the keys it names: reads only, nothing decided that
        needs the rows written), in a savepoint that is always rolled back. Running the
        whole handler here held the caller, and on SQLite the write lock, as long as the
        job itself; the job decides every row again and reports its rejects as the
        preview does."""
        precheck = getattr(req, "precheck", None)
        if precheck is None:
            return
        savepoint = session.begin_nested()
        try:
            precheck(self._op(session, actor, preview=True))
        finally:
            savepoint.rollback()

    def preview(self, tool: Tool, req: WriteRequest, actor: Actor, args: dict[str, Any],
                digest: str) -> dict[str, Any]:
        def run() -> tuple[Done[Any], Op, str]:
            with self.store.writing() as session:
                reads = start_tracking(session)
                op = self._op(session, actor, preview=True)
                done = tool.handler(op, req)
                op.flush()
                document = done.document.model_dump(mode="json")
                session.rollback()
                return Done(done.summary, document), op, fingerprint(reads)

        done, op, reads = self.store.retrying(run)
        token = expires = apply = None
        if not op.blocked:
            exp = op.now + self.preview_ttl
            token = tokens.issue(self.preview_key, tool=tool.name, actor=actor.subject,
                                 args=digest, reads=reads, exp=exp.timestamp())
            expires = exp.isoformat()
            apply = {
                "tool": tool.name,
                "arguments": {**_present(args), "preview": False, "preview_token": token,
                              "idempotency_key": str(uuid.uuid4())},
            }
        return {
            "preview": True,
            "tool": tool.name,
            "title": tool.title,
            "description": tool.subject,
            "summary": done.summary,
            "changes": op.final_changes(),
            "warnings": [w.as_dict() for w in op.warnings],
            "document": done.document,
            "preview_token": token,
            "expires_at": expires,
            "apply": apply,
        }

    def _stale(self, reason: str, tool: Tool, req: WriteRequest, actor: Actor,
               args: dict[str, Any], digest: str, cause: ShopfloorError | None = None
               ) -> StalePreview:
        details: dict[str, Any] = {}
        if cause is not None:
            details["cause"] = cause.to_payload()["error"]
        try:
            details["preview"] = self.preview(tool, req, actor, args, digest)
        except ShopfloorError as exc:
            details["preview_error"] = exc.to_payload()["error"]
        return StalePreview(f"{reason}; nothing was written. Review the fresh preview.",
                            field="preview_token", details=details)

    def _claims_problem(self, claims: tokens.Claims, tool: Tool, actor: Actor,
                        digest: str) -> str | None:
        if claims.tool != tool.name:
            return f"the preview_token was issued for {claims.tool}, not {tool.name}"
        if claims.actor != actor.subject:
            return "the preview_token was issued to another actor"
        if claims.args != digest:
            return "the arguments differ from the previewed ones"
        if claims.exp < self.clock().timestamp():
            return "the preview_token has expired"
        return None

    def apply_once(self, tool: Tool, req: WriteRequest, actor: Actor, args: dict[str, Any],
                   digest: str, claims: tokens.Claims | None,
                   also: Also | None = None) -> dict[str, Any]:
        """One transaction. The idempotency key is looked at first: a retry gets the first
        result even when its token has since expired or been spent by that first apply
        (told to preview again, it could apply twice). The key's row is written once, at
        the end, with the result: a racing twin fails on its unique index, rolls back and
        replays the winner's result. `also` writes beside the result, in the same
        transaction (an approved proposal's decision)."""
        with self.store.writing() as session:
            key = req.idempotency_key
            replayed = records.replay(session, key, tool.name, actor.subject, digest)
            if replayed is not None:
                return replayed
            if claims is not None:
                reason = self._claims_problem(claims, tool, actor, digest)
                if reason is not None:
                    session.rollback()
                    raise self._stale(reason, tool, req, actor, args, digest)
                try:
                    records.spend(session, claims.nonce, self.clock())
                except IntegrityError:
                    if records.twin_won(session, key):
                        raise RetryTransaction from None  # our twin spent it: replay
                    raise self._stale("the preview_token was already used", tool, req, actor,
                                      args, digest) from None
            if tool.facts.job:
                if claims is None:
                    self._dry_run(session, tool, req, actor)
                result = write_jobs.queued(session, tool, actor, args, claims, key)
                records.remember(session, key, tool.name, actor.subject, digest, result,
                                 self.clock())
                if also is not None:
                    also(session, result)
                session.commit()
                return result
            # only a token's fingerprint reads the read set: without one, none is kept
            reads = start_tracking(session) if claims is not None else None
            op = self._op(session, actor, operation_id=str(uuid.uuid4()))
            try:
                done = tool.handler(op, req)
                op.flush()
            except (ShopfloorError, IntegrityError) as exc:
                if records.twin_won(session, key):
                    raise RetryTransaction from None  # a twin with our key won: replay it
                if claims is None or not isinstance(exc, ShopfloorError):
                    raise
                raise self._stale(f"changed since the preview: {exc.message}", tool, req, actor,
                                  args, digest, cause=exc) from None
            if claims is not None and reads is not None and fingerprint(reads) != claims.reads:
                session.rollback()
                raise self._stale("something this preview read has changed since", tool, req,
                                  actor, args, digest)
            result = records.record(session, tool.name, op, done, args, key)
            records.remember(session, key, tool.name, actor.subject, digest, result,
                             self.clock())
            if also is not None:
                also(session, result)
            session.commit()
            return {**result, **done.shown_once} if done.shown_once else result

    # -- write jobs (write_jobs.py) -----------------------------------------------------
    def job_runners(self) -> dict[str, Callable[[JobContext], dict[str, Any]]]:
        """Every job kind the catalogue declares: a write job runs its own tool's handler
        (kind = the tool), a job-starting tool names its kind and runner."""
        runners: dict[str, Callable[[JobContext], dict[str, Any]]] = {}
        for t in self.tools():
            if t.facts.writes and t.facts.job:
                runners[t.name] = partial(self.run_write_job, t)
            elif t.facts.runs is not None:
                kind, runner = t.facts.runs
                runners[kind] = runner
        return runners

    def run_write_job(self, tool: Tool, ctx: JobContext) -> dict[str, Any]:
        return write_jobs.run(self, tool, ctx)


def _present(value: Any) -> Any:
    """Arguments without their unset (null) fields: what a host validating against the
    input schema accepts, and what parses back to the same request (so the same hash)."""
    if isinstance(value, dict):
        return {k: _present(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_present(v) for v in value]
    return value


def _roles(actor: Actor) -> str:
    return ", ".join(sorted(r.name for r in actor.roles)) or "no role"
