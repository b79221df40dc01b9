"""Preview tokens: signed claims, so any server instance can check one.

The token binds the tool, the actor, the arguments, the fingerprint of every row version
the preview read, and an expiry. Only whether it was spent lives in the database, written
by the apply in its own transaction.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from typing import Any

from shopfloor.kernel.errors import ValidationFailed


@dataclass(frozen=True)
class Claims:
    tool: str
    actor: str
    args: str
    reads: str
    exp: float
    nonce: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def args_hash(args: dict[str, Any]) -> str:
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def issue(secret: bytes, *, tool: str, actor: str, args: str, reads: str, exp: float) -> str:
    claims = Claims(tool, actor, args, reads, exp, secrets.token_urlsafe(12))
    payload = _b64(json.dumps(asdict(claims), separators=(",", ":")).encode())
    sig = _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())
    return f"pv1.{payload}.{sig}"


def verified(secret: bytes, token: str) -> Claims:
    try:
        prefix, payload, sig = token.split(".")
        if prefix != "pv1":
            raise ValueError
        expected = _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())
        if not hmac.compare_digest(expected, sig):
            raise ValueError
        return Claims(**json.loads(_unb64(payload)))
    except (ValueError, TypeError, json.JSONDecodeError):
        raise ValidationFailed(
            "preview_token is not a token this server issued", field="preview_token"
        ) from None
