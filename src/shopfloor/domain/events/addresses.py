"""Where a webhook may point. A receiver on the deployment's own network (loopback, the
cloud metadata address at 169.254.169.254, private ranges) would let anyone who can
create a webhook make the server call inside its walls, so only public http(s) addresses
are taken unless the deployment allows private ones.

A name is checked twice: what it spells here (`localhost`, an address written as one
number), and what it resolves to when each delivery connects (`public_addresses`), since
a name's answer can change after it was accepted.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from shopfloor.kernel.errors import ValidationFailed

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
LOCAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".home.arpa")


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


def is_public(ip: IpAddress) -> bool:
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None:
        return is_public(mapped)
    return bool(ip.is_global) and not ip.is_multicast


def checked_url(url: str, *, allow_private: bool) -> str:
    """The URL, if a webhook may point there; a coded error naming `url` if not."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        raise ValidationFailed(f"not a URL: {exc}", field="url") from None
    if parts.scheme not in ("http", "https"):
        raise ValidationFailed("a webhook URL must start with http:// or https://", field="url")
    if not host:
        raise ValidationFailed("the URL names no host", field="url")
    if parts.username or parts.password:
        raise ValidationFailed("the URL must not carry a user name or password; the "
                               "signature authenticates each delivery", field="url")
    if allow_private:
        return url
    address = literal_address(host)
    if address is not None and not is_public(address):
        raise ValidationFailed(f"{host} is a loopback, link-local or private address; "
                               "webhooks go to public addresses (a deployment may set "
                               "webhook_allow_private)", field="url")
    name = host.lower().rstrip(".")
    if address is None and (name in LOCAL_NAMES or name.endswith(LOCAL_NAMES)
                            or "." not in name):
        raise ValidationFailed(f"{host} is a local name; webhooks go to public addresses "
                               "(a deployment may set webhook_allow_private)", field="url")
    return url


def public_addresses(host: str, port: int) -> list[str]:
    """What `host` resolves to, refused (ValueError) if any answer is not public: checked
    as each delivery connects."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not is_public(ip):
            raise ValueError(f"{host} resolves to {ip}, which is not a public address")
        found.append(str(ip))
    return found
