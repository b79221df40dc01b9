"""Where a webhook may point. A receiver on the deployment's own network (loopback, the
cloud metadata address at 169.254.169.254, private ranges) would let anyone who can
create a webhook make the server call inside its walls, so only public http(s) addresses
are taken unless the deployment allows private ones.

The URL is decided once, when the webhook is made (`checked_url`): its host written the
one way a resolver reads it (NFKC, so full-width digits are digits; IDNA for names; an
address literal in its canonical form; the path is the receiver's, kept as given), with
no user name or password, and refused if it can never be delivered to: an address that
is not public however it is spelled (IPv4 inside IPv6: `[::127.0.0.1]`,
`[::ffff:127.0.0.1]`, NAT64 `64:ff9b::/96`, 6to4), a name whose labels spell such an
address (`127.0.0.1.nip.io`), or a name that resolves to one now.
Each delivery then resolves the name once, checks every answer (`public_addresses`) and
connects to the address it checked, since a name's answer can change after it was
accepted.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from shopfloor.kernel.errors import ValidationFailed

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
LOCAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".home.arpa")
Resolve = Callable[..., list[Any]]
ASK_FOR = 2.0
"""Seconds a webhook's creation waits for its name's answer before taking it unasked."""
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
COMPATIBLE = ipaddress.IPv6Network("::/96")
_DOTTED = re.compile(r"^(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?:[.-]|$)")
_HEXED = re.compile(r"^([0-9a-f]{8})(?:[.-]|$)")


def literal_address(host: str) -> IpAddress | None:
    """The address a host spells, in every form a resolver would read it (`127.1`,
    `2130706433`, `0x7f.0.0.1`, `[::ffff:127.0.0.1]`), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def embedded_v4(ip: IpAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and reaches: mapped (`::ffff:a.b.c.d`),
    compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`), 6to4, Teredo's client."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in NAT64 or (ip in COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    return ip.teredo[1] if ip.teredo is not None else None


def is_public(ip: IpAddress) -> bool:
    inner = embedded_v4(ip)
    if inner is not None:
        return is_public(inner)
    return bool(ip.is_global) and not ip.is_multicast


def spelled_in_name(name: str) -> ipaddress.IPv4Address | None:
    """The address a wildcard-DNS name spells in its first labels, which such services
    (nip.io, sslip.io, ...) answer with: `127.0.0.1.nip.io`, `10-0-0-1.sslip.io`,
    `7f000001.nip.io`."""
    dotted = _DOTTED.match(name)
    try:
        if dotted is not None:
            return ipaddress.IPv4Address(".".join(str(int(g)) for g in dotted.groups()))
        hexed = _HEXED.match(name)
        return ipaddress.IPv4Address(int(hexed.group(1), 16)) if hexed else None
    except ValueError:
        return None


def _canonical_host(host: str) -> str:
    """The host as every later reader will read it: NFKC, lower case, IDNA for a name,
    an address literal in its one canonical spelling."""
    host = unicodedata.normalize("NFKC", host).strip().lower()
    address = literal_address(host)
    if address is not None:
        return f"[{address.compressed}]" if address.version == 6 else str(address)
    try:
        name = host.rstrip(".").encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise ValidationFailed(f"{host!r} is not a host name: {exc}", field="url") from None
    return name if literal_address(name) is None else _canonical_host(name)


_PRIVATE = ("; webhooks go to public addresses (a deployment may set "
            "webhook_allow_private)")


def checked_url(url: str, *, allow_private: bool,
                resolve: Resolve = socket.getaddrinfo) -> str:
    """The URL as it will be delivered to, if a webhook may point there; a coded error
    naming `url` if not. `resolve` is asked what a name answers now (no answer: taken,
    and judged again at each delivery)."""
    try:
        parts = urlsplit(url.strip())
        where = urlsplit("//" + unicodedata.normalize("NFKC", parts.netloc))  # not the path
        host = _canonical_host(where.hostname or "")
        port = where.port  # a port that is not a number raises here
    except ValueError as exc:
        raise ValidationFailed(f"not a URL: {exc}", field="url") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ValidationFailed("a webhook URL must start with http:// or https://", field="url")
    if not host:
        raise ValidationFailed("the URL names no host", field="url")
    if "@" in where.netloc:
        raise ValidationFailed("the URL must not carry a user name or password; the "
                               "signature authenticates each delivery", field="url")
    netloc = host if port is None else f"{host}:{port}"
    decided = urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", parts.query, ""))
    if allow_private:
        return decided
    address = literal_address(host)
    if address is not None and not is_public(address):
        raise ValidationFailed(f"{host} is a loopback, link-local or private address"
                               f"{_PRIVATE}", field="url")
    if address is None:
        if host in LOCAL_NAMES or host.endswith(LOCAL_NAMES) or "." not in host:
            raise ValidationFailed(f"{host} is a local name{_PRIVATE}", field="url")
        spelled = spelled_in_name(host)
        if spelled is not None and not is_public(spelled):
            raise ValidationFailed(f"{host} names the address {spelled}, which is not "
                                   f"public{_PRIVATE}", field="url")
        asking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="resolve")
        try:  # bounded: a write waits on this answer, and a slow resolver must not hold it
            asking.submit(public_addresses, host, port or 443, resolve).result(ASK_FOR)
        except (OSError, TimeoutError):
            pass  # no answer now; each delivery asks again
        except ValueError as exc:
            raise ValidationFailed(f"{exc}{_PRIVATE}", field="url") from None
        finally:
            asking.shutdown(wait=False)
    return decided


def resolved(host: str, port: int, resolve: Resolve = socket.getaddrinfo) -> list[IpAddress]:
    """Every address `host` answers with now, in the resolver's order (OSError: none)."""
    found: list[IpAddress] = []
    for info in resolve(host, port, type=socket.SOCK_STREAM):
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if ip not in found:
            found.append(ip)
    if not found:
        raise OSError(f"{host} resolves to no address")
    return found


def public_addresses(host: str, port: int, resolve: Resolve = socket.getaddrinfo
                     ) -> list[IpAddress]:
    """What `host` resolves to, refused (ValueError) if any answer is not public."""
    found = resolved(host, port, resolve)
    for ip in found:
        if not is_public(ip):
            raise ValueError(f"{host} resolves to {ip}, which is not a public address")
    return found
