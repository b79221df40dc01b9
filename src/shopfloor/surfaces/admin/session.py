"""The admin's session: the signed-in JWT in an HttpOnly cookie, and CSRF for its forms.

The browser holds the same bearer token the API takes (from the same sign-in), but in a
cookie script cannot read (HttpOnly) and other sites cannot send (SameSite=Strict). Each
state-changing form also carries a token derived from the session (HMAC), checked on
every POST, and every POST, sign-in included, must come from this site's own pages by its
Origin (or Referer): the sign-in form has no session to derive a token from, and without
the check another site could sign a browser in as the attacker (login CSRF).

When the session has ended, a page request is sent to the sign-in page with the reason (a
fixed text chosen by code) and the page it came from; an htmx request gets the same as an
`HX-Redirect`.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from shopfloor.kernel.errors import ShopfloorError, Unauthenticated
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.auth import Authenticator

COOKIE = "shopfloor_session"


class SignInNeeded(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def bearer(request: Request) -> str | None:
    token = request.cookies.get(COOKIE)
    return f"Bearer {token}" if token else None


async def current_actor(request: Request, auth: Authenticator) -> Actor:
    header = bearer(request)
    if header is None:
        raise SignInNeeded("unauthenticated")
    try:
        return await run_in_threadpool(auth.actor, header)
    except Unauthenticated as exc:
        reason = exc.details.get("reason")
        raise SignInNeeded(reason if isinstance(reason, str) else "unauthenticated") from None


def csrf_token(request: Request, key: bytes) -> str:
    cookie = request.cookies.get(COOKIE, "")
    return hmac.new(key, b"csrf:" + cookie.encode(), hashlib.sha256).hexdigest()[:32]


def csrf_ok(request: Request, key: bytes, sent: str | None) -> bool:
    return bool(sent) and hmac.compare_digest(csrf_token(request, key), sent or "")


def same_origin(request: Request) -> bool | None:
    """Whether the page that sent this request is this site's, by its Origin, else its
    Referer; None when it names neither. An opaque origin (`null`: a sandboxed frame, a
    data: URL) is another site. The site's https origin counts when the request arrived
    as http (TLS ended at a proxy uvicorn was not told to trust)."""
    sent = request.headers.get("origin") or request.headers.get("referer")
    if not sent:
        return None
    parts = urlsplit(sent)
    here = request.url
    return (bool(parts.netloc) and parts.netloc.lower() == here.netloc.lower()
            and parts.scheme in (here.scheme, "https"))


def safe_next(target: str | None) -> str:
    """Only a path on this site: never an open redirect."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


def to_sign_in(request: Request, reason: str) -> Response:
    here = request.headers.get("hx-current-url") or str(request.url)
    parts = urlsplit(here)
    back = parts.path + (f"?{parts.query}" if parts.query else "")
    if request.method != "GET" and not request.headers.get("hx-current-url"):
        back = "/"
    target = f"/sign-in?reason={quote(reason)}&next={quote(safe_next(back), safe='')}"
    if request.headers.get("hx-request"):
        response = Response(status_code=204, headers={"HX-Redirect": target})
    else:
        response = RedirectResponse(target, status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


def set_session(response: Response, token: str, secure: bool) -> None:
    """A browser-session cookie: the server, not the cookie's age, decides when the
    session ends, so an expired one comes back and is told apart from a missing one."""
    response.set_cookie(COOKIE, token, path="/", httponly=True, samesite="strict",
                        secure=secure)


async def end_session(request: Request, auth: Authenticator) -> None:
    header = bearer(request)
    if header is None:
        return
    try:
        sid = await run_in_threadpool(auth.session_of, header)
    except ShopfloorError:
        return
    if sid is not None:
        await run_in_threadpool(auth.accounts.sign_out, sid)
