"""One error hierarchy with stable codes.

Every surface maps the code (never the class or the message) to its own shape, so a
client can branch on `code` and show `message`; `field` names the argument at fault.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ShopfloorError(Exception):
    code: ClassVar[str] = "internal"

    def __init_subclass__(cls, code: str = "", **kwargs: Any) -> None:
        """`class NotFound(ShopfloorError, code="not_found")`: the code in the class's header."""
        super().__init_subclass__(**kwargs)
        if code:
            cls.code = code

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.details = details or {}

    def to_payload(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "field": self.field,
                "details": self.details,
            }
        }


class ValidationFailed(ShopfloorError, code="validation_error"):
    """An argument a rule refuses; `field` names it, so a form can point at it."""


class NotFound(ShopfloorError, code="not_found"):
    """The record, file or database a request names is not there."""


class Conflict(ShopfloorError, code="conflict"):
    """A well-formed request the present state refuses (a name taken, a document past the
    status that allows it)."""


class InsufficientStock(ShopfloorError, code="insufficient_stock"):
    """A move would take more than its location holds, or than the lots it may use."""


class StalePreview(ShopfloorError, code="stale_preview"):
    """What a preview read has changed since: nothing was written; the details may carry
    the fresh preview to confirm instead."""


class Forbidden(ShopfloorError, code="forbidden"):
    """The actor is known, but its role (or the proposal's rules) does not allow this."""


class Unauthenticated(ShopfloorError, code="unauthenticated"):
    """No actor: a missing, expired or revoked credential, or a disabled account."""


class PeriodLocked(ShopfloorError, code="period_locked"):
    """A write dated on or before the books' lock date: the closed period is the
    accountant's, and only lowering the lock reopens it."""


class Internal(ShopfloorError, code="internal"):
    """A failure of ours (the database, a backup tool), not of the request."""


ERROR_CODES: tuple[str, ...] = (
    "validation_error",
    "not_found",
    "conflict",
    "insufficient_stock",
    "stale_preview",
    "forbidden",
    "unauthenticated",
    "internal",
    "period_locked",
)


# -- unique violations ---------------------------------------------------------------------
