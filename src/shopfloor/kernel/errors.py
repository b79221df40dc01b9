"""One error hierarchy with stable codes.

Every surface maps the code (never the class or the message) to its own shape, so a
client can branch on `code` and show `message`; `field` names the argument at fault.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ShopfloorError(Exception):
    code: ClassVar[str] = "internal"

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


class ValidationFailed(ShopfloorError):
    code = "validation_error"


class NotFound(ShopfloorError):
    code = "not_found"


class Conflict(ShopfloorError):
    code = "conflict"


class InsufficientStock(ShopfloorError):
    code = "insufficient_stock"


class StalePreview(ShopfloorError):
    code = "stale_preview"


class Forbidden(ShopfloorError):
    code = "forbidden"


class Unauthenticated(ShopfloorError):
    code = "unauthenticated"


class PeriodLocked(ShopfloorError):
    """A write dated on or before the books' lock date: the closed period is the
    accountant's, and only lowering the lock reopens it."""

    code = "period_locked"


class Internal(ShopfloorError):
    code = "internal"


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
