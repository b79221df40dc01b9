"""The letterhead (issue 29): set by an admin, previewed, read back; the logo accepted as a
PNG or an SVG by its own bytes (signature, checksums, a parse) and refused otherwise, with
a coded error naming `logo` and nothing written."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply, snapshot


def png(width: int = 2, height: int = 1) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body))
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8,
                                                              2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">'
       b'<rect width="40" height="20" fill="#1d4ed8"/></svg>')


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_the_letterhead_is_set_previewed_and_read(registry: Registry) -> None:
    assert registry.invoke("get_company_profile", {}, ADMIN)["name"] is None
    args = {"name": "Brightwood Joinery Ltd", "address": "Unit 4, Mill Lane\nLeeds LS1 4AB",
            "tax_id": "GB 123 4567 89", "email": "office@brightwood.example",
            "phone": "+44 113 496 0000", "logo": b64(png())}
    before = snapshot(registry)
    preview = registry.invoke("set_company_profile", args, ADMIN)
    assert snapshot(registry) == before
    fields = {c["field"] for c in preview["changes"]}
    assert {"name", "address", "tax_id", "email", "phone", "logo"} <= fields
    registry.invoke("set_company_profile", preview["apply"]["arguments"], ADMIN)
    got = registry.invoke("get_company_profile", {}, Actor.of("vera", "viewer"))
    assert (got["name"], got["address"], got["logo_type"]) == (
        "Brightwood Joinery Ltd", "Unit 4, Mill Lane\nLeeds LS1 4AB", "image/png")
    assert base64.b64decode(got["logo"]) == png()

    apply(registry, "set_company_profile", name="Brightwood Ltd", logo=b64(SVG))
    got = registry.invoke("get_company_profile", {}, ADMIN)
    assert (got["name"], got["address"], got["logo_type"]) == (
        "Brightwood Ltd", None, "image/svg+xml")
    apply(registry, "set_company_profile", name="Brightwood Ltd")  # the logo stays
    assert registry.invoke("get_company_profile", {}, ADMIN)["logo_type"] == "image/svg+xml"
    apply(registry, "set_company_profile", name="Brightwood Ltd", clear_logo=True)
    assert registry.invoke("get_company_profile", {}, ADMIN)["logo"] is None
    with pytest.raises(ShopfloorError) as err:
        apply(registry, "set_company_profile", Actor.of("otto", "operator"), name="Mine")
    assert err.value.code == "forbidden"


BAD_LOGOS = {
    "text": b"hello, not an image",
    "png signature only": b"\x89PNG\r\n\x1a\n",
    "png with a wrong checksum": png()[:-5] + b"\x00" + png()[-4:],
    "png cut short": png()[:40],
    "png with bytes after IEND": png() + b"junk",
    "jpeg": b"\xff\xd8\xff\xe0" + b"\x00" * 64,
    "svg with a script": b'<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>',
    "svg with a handler": b'<svg xmlns="http://www.w3.org/2000/svg" onload="x()"/>',
    "svg fetching": b'<svg xmlns="http://www.w3.org/2000/svg" '
                    b'xmlns:x="http://www.w3.org/1999/xlink"><image x:href="http://e.test/a"/>'
                    b'</svg>',
    "svg with entities": b'<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaa">]>'
                         b'<svg xmlns="http://www.w3.org/2000/svg"><text>&a;</text></svg>',
    "svg not well-formed": b'<svg xmlns="http://www.w3.org/2000/svg"><g></svg>',
    "xml not svg": b'<?xml version="1.0"?><html/>',
    "too big": png()[:8] + b"\x00" * (200 * 1024 + 1),
    "too big svg": b'<svg xmlns="http://www.w3.org/2000/svg">' + b" " * (200 * 1024) + b"</svg>",
}


@pytest.mark.parametrize("case", sorted(BAD_LOGOS))
def test_a_logo_that_is_not_what_it_says_is_refused(registry: Registry, case: str) -> None:
    apply(registry, "set_company_profile", name="Brightwood Ltd", logo=b64(png()))
    before = snapshot(registry)
    for preview in (True, False):
        with pytest.raises(ShopfloorError) as err:
            registry.invoke("set_company_profile", {
                "name": "Brightwood Ltd", "logo": b64(BAD_LOGOS[case]), "preview": preview},
                ADMIN)
        assert (err.value.code, err.value.field) == ("validation_error", "logo"), err.value
    assert snapshot(registry) == before
