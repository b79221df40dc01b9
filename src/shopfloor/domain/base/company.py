"""The company's own letterhead: its name, address, tax id, email, phone and logo, which
every printed document carries.

A logo is accepted only as what it says it is, checked by its bytes rather than by a name
or a declared type: a PNG by its signature and each chunk's CRC, from IHDR to IEND; an SVG
by parsing it, with no DTD or entity (no entity expansion), no script, no foreign object,
no event handler and no reference out of the file (a printed page must not fetch
anything). Either is at most 200 KB.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.store.tables import CompanyProfile

MAX_LOGO = 200 * 1024
PNG, SVG = "image/png", "image/svg+xml"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SVG_NS = "{http://www.w3.org/2000/svg}"
_FORBIDDEN = {"script", "foreignObject", "iframe", "object", "embed", "audio", "video"}
_LOCAL = re.compile(r"^(#|data:image/(png|jpeg|gif);base64,)")
FIELDS = ("name", "address", "tax_id", "email", "phone")


def _bad(why: str) -> ValidationFailed:
    return ValidationFailed(f"the logo {why}; give a PNG or an SVG file of at most "
                            f"{MAX_LOGO // 1024} KB", field="logo")


def _png(data: bytes) -> None:
    at, seen = len(_PNG_SIGNATURE), []
    while at < len(data):
        if at + 12 > len(data):
            raise _bad("is a PNG cut short")
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + size]
        if len(body) != size or at + 12 + size > len(data):
            raise _bad("is a PNG cut short")
        (crc,) = struct.unpack(">I", data[at + 8 + size:at + 12 + size])
        if zlib.crc32(kind + body) != crc:
            raise _bad("is a damaged PNG (a chunk's checksum is wrong)")
        seen.append(kind)
        at += 12 + size
        if kind == b"IEND":
            break
    if not seen or seen[0] != b"IHDR" or seen[-1] != b"IEND" or at != len(data):
        raise _bad("is not a whole PNG (IHDR first, IEND last)")
    width, height = struct.unpack(">II", data[16:24])
    if not (0 < width <= 10000 and 0 < height <= 10000):
        raise _bad("has no sensible size")


def _svg(data: bytes) -> None:
    text = data.decode("utf-8", "strict")
    if "<!DOCTYPE" in text.upper() or "<!ENTITY" in text.upper():
        raise _bad("declares a DTD or an entity")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise _bad(f"is not well-formed SVG ({exc})") from None
    if root.tag not in (f"{_SVG_NS}svg", "svg"):
        raise _bad("is XML but not SVG")
    for node in root.iter():
        tag = node.tag.rsplit("}", 1)[-1] if isinstance(node.tag, str) else ""
        if tag in _FORBIDDEN:
            raise _bad(f"holds a <{tag}>")
        for name, value in node.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            if local.startswith("on"):
                raise _bad(f"has an event handler ({local})")
            if local == "href" and not _LOCAL.match(value.strip()):
                raise _bad("refers to something outside the file")
            if "url(" in value and "url(#" not in value.replace(" ", ""):
                raise _bad("refers to something outside the file")


def logo_type(data: bytes) -> str:
    """The media type of an acceptable logo, or a coded error naming `logo`."""
    if not data:
        raise _bad("is empty")
    if len(data) > MAX_LOGO:
        raise _bad(f"is {len(data) // 1024} KB")
    if data.startswith(_PNG_SIGNATURE):
        _png(data)
        return PNG
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"<?xml", b"<svg", b"<!--")):
        try:
            _svg(data)
        except UnicodeDecodeError:
            raise _bad("is not UTF-8 text") from None
        return SVG
    raise _bad("is neither a PNG nor an SVG (by its first bytes)")


def profile(op: Op) -> CompanyProfile | None:
    return op.session.get(CompanyProfile, 1)


def put(op: Op, fields: Mapping[str, Any], logo: tuple[str, str] | None,
        clear_logo: bool) -> CompanyProfile:
    """Set the letterhead's words as given (each field given or cleared) and, when given,
    the logo as (base64, media type): each change recorded."""
    row = profile(op)
    if row is None:
        row = CompanyProfile(id=1, name=fields["name"], updated_at=op.now)
        op.session.add(row)
        op.change("company_profile", "letterhead", "name", None, fields["name"])
    for name in FIELDS:
        if name in fields and fields[name] != getattr(row, name):
            op.change("company_profile", "letterhead", name, getattr(row, name), fields[name])
            setattr(row, name, fields[name])
    if logo is not None or (clear_logo and row.logo is not None):
        encoded, media = logo if logo is not None else (None, None)
        if encoded != row.logo:
            op.change("company_profile", "letterhead", "logo", row.logo_type,
                      f"{media} ({len(encoded) * 3 // 4 // 1024 or 1} KB)" if encoded else None)
            row.logo, row.logo_type = encoded, media
    row.updated_at = op.now
    op.session.flush()
    return row
