"""Bearer JWTs: who the caller is and which roles they hold.

HS256 with a key derived from the deployment secret (HMAC-SHA256 of the secret and "jwt",
so the raw secret signs nothing; `shopfloor token create` mints them), or RS256/ES256
from an external identity provider's JWKS when configured. The subject becomes the actor
recorded in the operation log and bound to preview tokens. Tokens are never logged.

Every token must name its issuer (`iss`) and audience (`aud`), never optional: our own
name the deployment's pair stored at `init`, a provider's the JWT_ISSUER and JWT_AUDIENCE
settings (both required with JWKS_URL). A token signed with a right key but meant for
someone else, or naming no one, is refused.

A verified token's actor is kept (bounded, least recently used out first) until the
token's own `exp`, so a client sending the same token on every request pays for one
signature check, not one per request; expiry is still checked on every use.

Time is the registry's clock, read at each use, never the process's: minting, expiry
(`exp`, `nbf`, `iat`, checked by PyJWT's own rules but against that clock), the cache and
the sessions all move with it, so a test moves one clock past a token's life instead of
waiting it out.

A token minted by a password sign-in names its session (`sid`): that one is checked
against the session row on every use, so a sign-out or a disabled account ends it at once.
Any token of a revoked subject (`shopfloor token revoke`) issued up to its revocation is
refused; the revoked subjects are read at most once a second (`REVOKED_TTL`), so a
revocation holds on every instance within a second, without a query per request.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from datetime import timedelta
from typing import Any

import jwt
from starlette.requests import Request
from starlette.responses import Response

from shopfloor.app.accounts import Accounts, SignedIn
from shopfloor.app.settings import Settings
from shopfloor.app.throttle import TooManyAttempts
from shopfloor.app.wiring import load_token_names
from shopfloor.kernel.errors import Unauthenticated, ValidationFailed
from shopfloor.kernel.roles import Role
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry

ALGORITHMS = ["HS256"]
CACHE_SIZE = 1024
CACHE_TOKEN_CHARS = 8192
REVOKED_TTL = 1.0
"""Longer tokens are verified each time: the cache's memory stays bounded by both."""


class Authenticator:
    def __init__(self, registry: Registry, settings: Settings) -> None:
        self._registry = registry
        self._key = registry.key("jwt")
        self._issuer, self._audience = load_token_names(registry.store)
        self._jwks = jwt.PyJWKClient(settings.jwks_url) if settings.jwks_url else None
        self._provider = (settings.jwt_issuer or "", settings.jwt_audience or "")
        if self._jwks is not None and not all(self._provider):
            missing = "jwt_audience" if settings.jwt_issuer else "jwt_issuer"
            raise ValidationFailed("JWKS_URL needs the provider's JWT_ISSUER and JWT_AUDIENCE "
                                   "(SHOPFLOOR_JWT_ISSUER, SHOPFLOOR_JWT_AUDIENCE): its tokens "
                                   "must name both", field=missing)
        self._verified: OrderedDict[str, tuple[float, Actor, str | None, float]] = \
            OrderedDict()
        self._revoked: tuple[float, dict[str, float]] = (-math.inf, {})
        self._lock = threading.Lock()
        self.accounts = Accounts(registry.store, clock=lambda: registry.clock(),
                                catalogue=registry)
        self.session_ttl = timedelta(minutes=settings.session_minutes)

    @property
    def cached_tokens(self) -> int:
        return len(self._verified)

    def mint(self, subject: str, roles: list[str], ttl_seconds: int,
             session_id: str | None = None, *, needs_approval: bool = False) -> str:
        """`needs_approval`: the bearer's applies are held as proposals (claim `approval`)."""
        for r in roles:
            Role.parse(r)
        now = int(self._now())
        claims: dict[str, Any] = {"sub": subject, "roles": roles, "iat": now,
                                  "exp": now + ttl_seconds, "iss": self._issuer,
                                  "aud": self._audience}
        if session_id is not None:
            claims["sid"] = session_id
        if needs_approval:
            claims["approval"] = True
        return jwt.encode(claims, self._key, algorithm="HS256")

    def sign_in(self, username: str, password: str,
                client: str | None = None) -> tuple[str, int, SignedIn]:
        """The OAuth2 password flow's work: check the password (throttled per name and
        per `client` address), open a session, mint a token that lives exactly as long
        as it. Returns (token, expires_in, session)."""
        signed = self.accounts.sign_in(username, password, self.session_ttl, client)
        ttl = max(1, int(self.session_ttl.total_seconds()))
        return self.mint(signed.username, [signed.role], ttl, signed.session_id,
                         needs_approval=signed.needs_approval), ttl, signed

    def session_of(self, authorization: str | None) -> str | None:
        """The session id a (valid) token names, if it came from a sign-in."""
        self.actor(authorization)
        token = (authorization or "").partition(" ")[2].strip()
        with self._lock:
            hit = self._verified.get(token)
        if hit is not None:
            return hit[2]
        sid = self._decode(token).get("sid")
        return sid if isinstance(sid, str) else None

    def actor(self, authorization: str | None) -> Actor:
        if not authorization:
            raise Unauthenticated("missing bearer token (Authorization: Bearer <jwt>)")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("use the Bearer scheme: Authorization: Bearer <jwt>")
        token = token.strip()
        known = self._cached(token)
        if known is not None:
            actor, sid, issued = known
            self._not_revoked(actor.subject, issued)
            if sid is not None:
                self.accounts.check(sid)
            return actor
        try:
            claims = self._decode(token)
        except jwt.ExpiredSignatureError:
            raise Unauthenticated("the token has expired",
                                  details={"reason": "expired"}) from None
        except jwt.PyJWTError as exc:
            raise Unauthenticated(f"invalid token: {type(exc).__name__}") from None
        subject = claims.get("sub")
        roles = claims.get("roles", [])
        if not isinstance(subject, str) or not subject:
            raise Unauthenticated("the token has no subject (sub)")
        if len(subject) > 200 or any(ord(ch) < 32 or ord(ch) == 127 for ch in subject):
            # the subject is the actor written to the operation log and bound to previews
            raise Unauthenticated("the token's subject (sub) must be a short printable name")
        if isinstance(roles, str):
            roles = roles.split()
        if not isinstance(roles, list):
            raise Unauthenticated("invalid roles claim: expected a list of role names")
        try:
            actor = Actor.of(subject, *[str(r) for r in roles],
                             needs_approval=claims.get("approval") is True)
        except ValueError as exc:
            raise Unauthenticated(f"invalid roles claim: {exc}") from None
        sid = claims.get("sid")
        if sid is not None and not isinstance(sid, str):
            raise Unauthenticated("invalid session claim (sid)")
        said = claims.get("iat")
        issued = float(said) if isinstance(said, int | float) else -math.inf
        self._not_revoked(subject, issued)
        if sid is not None:
            self.accounts.check(sid)
        self._keep(token, int(claims["exp"]), actor, sid, issued)
        return actor

    def _not_revoked(self, subject: str, issued: float) -> None:
        """A token issued up to its subject's revocation (or naming no `iat`) is refused."""
        read_at, revoked = self._revoked
        if time.monotonic() - read_at > REVOKED_TTL:
            revoked = {k: v.timestamp() for k, v in self.accounts.revoked().items()}
            self._revoked = (time.monotonic(), revoked)
        until = revoked.get(subject)
        if until is not None and issued <= until:
            raise Unauthenticated("this token was revoked (shopfloor token revoke); use "
                                  "one issued since", details={"reason": "revoked"})

    def _cached(self, token: str) -> tuple[Actor, str | None, float] | None:
        """The actor of an already verified token, while it is unexpired (the same rule as
        PyJWT's: refused from its `exp` second on)."""
        with self._lock:
            hit = self._verified.get(token)
            if hit is None:
                return None
            if hit[0] <= self._now():
                del self._verified[token]
                raise Unauthenticated("the token has expired", details={"reason": "expired"})
            self._verified.move_to_end(token)
            return hit[1], hit[2], hit[3]

    def _keep(self, token: str, exp: float, actor: Actor, sid: str | None,
              issued: float) -> None:
        if len(token) > CACHE_TOKEN_CHARS:
            return
        with self._lock:
            self._verified[token] = (exp, actor, sid, issued)
            self._verified.move_to_end(token)
            while len(self._verified) > CACHE_SIZE:
                self._verified.popitem(last=False)

    def _now(self) -> float:
        return self._registry.clock().timestamp()

    def _decode(self, token: str) -> dict[str, Any]:
        """Signature, issuer and audience by PyJWT; its times against our clock (timely)."""
        options: Any = {"require": ["exp", "sub", "iss", "aud"], "verify_exp": False,
                        "verify_nbf": False, "verify_iat": False}
        if self._jwks is not None and jwt.get_unverified_header(token).get("alg") != "HS256":
            signing = self._jwks.get_signing_key_from_jwt(token)
            issuer, audience = self._provider
            claims = jwt.decode(token, signing.key, algorithms=["RS256", "ES256"],
                                issuer=issuer, audience=audience, options=options)
        else:
            claims = jwt.decode(token, self._key, algorithms=ALGORITHMS, issuer=self._issuer,
                                audience=self._audience, options=options)
        timely(claims, self._now())
        return claims


def timely(claims: dict[str, Any], now: float) -> None:
    """PyJWT's time rules (no leeway, the errors and texts it raises) at `now`: PyJWT reads
    the process's time and takes no other, so its own checks are off and these stand in."""
    iat, nbf, exp = (_whole(claims, name) for name in ("iat", "nbf", "exp"))
    if iat is not None and iat > now:
        raise jwt.ImmatureSignatureError("The token is not yet valid (iat)")
    if nbf is not None and nbf > now:
        raise jwt.ImmatureSignatureError("The token is not yet valid (nbf)")
    if exp is not None and exp <= now:
        raise jwt.ExpiredSignatureError("Signature has expired")


def _whole(claims: dict[str, Any], name: str) -> int | None:
    if name not in claims:
        return None
    try:
        return int(claims[name])
    except (ValueError, TypeError, OverflowError):
        if name == "iat":
            raise jwt.InvalidIssuedAtError("Issued At claim (iat) must be an integer.") from None
        label = "Not Before" if name == "nbf" else "Expiration Time"
        raise jwt.DecodeError(f"{label} claim ({name}) must be an integer.") from None


def client_address(request: Request) -> str | None:
    """Who is guessing, for the sign-in throttle: the peer uvicorn saw, which is the
    client a trusted proxy names in X-Forwarded-For (uvicorn trusts loopback by default,
    FORWARDED_ALLOW_IPS for others)."""
    return request.client.host if request.client else None


def throttled(response: Response, exc: TooManyAttempts) -> Response:
    response.headers["Retry-After"] = str(exc.retry_after)
    return response
