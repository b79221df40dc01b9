"""GS1 keys and element strings: the GTIN's check digit, and what a scanner hands over.

A scanner reading a GS1-128 or GS1 DataMatrix symbol sends its element string in one of
three spellings: with a symbology identifier (`]C1`, `]d2`, `]Q3`) and the group
separator (ASCII 29) where a variable-length field ends, with the separators and no
identifier, or as printed under the bars, `(01)09501101530003(17)270131(10)AB12`. All
three read the same here. Only the application identifiers a label of ours or a
supplier's carries are known; an unknown one ends the reading (None), rather than be
guessed at.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date

GS = "\x1d"
FNC1 = "\xf1"  # how python-barcode (and some scanners' drivers) spell FNC1
GTIN_LENGTHS = (8, 12, 13, 14)
_PREFIXES = ("]C1", "]d2", "]Q3", "]e0", "]J1")

# Application identifier -> (length, fixed). Fixed-length fields need no separator.
_FIXED = {"00": 18, "01": 14, "02": 14, "11": 6, "12": 6, "13": 6, "15": 6, "16": 6,
          "17": 6, "20": 2, **{f"41{d}": 13 for d in "01234567"}}
_VARIABLE = {"10": 20, "21": 20, "22": 20, "30": 8, "37": 8, "240": 30, "241": 30,
             "250": 30, "400": 30, "90": 30, **{f"9{d}": 90 for d in "123456789"}}
_MEASURE = re.compile(r"^3[1-6]\d\d$")  # 31nn-36nn: trade measures, six digits
_PAREN = re.compile(r"\((\d{2,4})\)([^()]*)")


def check_digit(body: str) -> int:
    """The GS1 mod-10 check digit of `body` (the key without its last digit)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return (10 - total % 10) % 10


def gtin_problem(text: str) -> str | None:
    """Why `text` is not a GTIN-8, -12, -13 or -14, or None when it is one."""
    if not text.isascii() or not text.isdigit():
        return "a GTIN is digits only"
    if len(text) not in GTIN_LENGTHS:
        return f"a GTIN has 8, 12, 13 or 14 digits, not {len(text)}"
    want = check_digit(text[:-1])
    if int(text[-1]) != want:
        return f"check digit is {text[-1]}, should be {want}"
    return None


def gtin14(text: str) -> str:
    """The 14-digit form (what AI 01 carries) of a GTIN of any length."""
    return text.zfill(14)


def gtin_forms(text: str) -> list[str]:
    """Every length one GTIN can be written in (EAN-13 `4006381333931` is GTIN-14
    `04006381333931` under AI 01): a stored key may be any of them."""
    full = gtin14(text)
    return [full[-n:] for n in GTIN_LENGTHS if not full[:-n].strip("0")]


def element_string(fields: list[tuple[str, str]]) -> str:
    """The data of a GS1-128 symbol for `fields`, in order: FNC1 first, and FNC1 after each
    variable-length field that is not the last."""
    out = FNC1
    for i, (ai, value) in enumerate(fields):
        out += ai + value
        if ai not in _FIXED and not _MEASURE.match(ai) and i < len(fields) - 1:
            out += FNC1
    return out


def human(fields: list[tuple[str, str]]) -> str:
    return "".join(f"({ai}){value}" for ai, value in fields)


def yymmdd(day: date) -> str:
    return day.strftime("%y%m%d")


def parse_date(text: str) -> date | None:
    """YYMMDD; day 00 is the month's last day (GS1 General Specifications 7.12)."""
    if len(text) != 6 or not text.isdigit():
        return None
    year, month, day = 2000 + int(text[:2]), int(text[2:4]), int(text[4:])
    if not 1 <= month <= 12:
        return None
    last = monthrange(year, month)[1]
    if day > last:
        return None
    return date(year, month, day or last)


def _ai_at(text: str, at: int) -> str | None:
    for size in (2, 3, 4):
        ai = text[at:at + size]
        if ai in _FIXED or ai in _VARIABLE or (size == 4 and _MEASURE.match(ai)):
            return ai
    return None


def parse(code: str) -> list[tuple[str, str]] | None:
    """The (AI, value) pairs of a scanned element string, or None if it is not one."""
    text = code.strip()
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    else:
        if text.startswith("("):
            return _parenthesised(text)
    text = text.replace(FNC1, GS).strip(GS)
    if not text or not text[:2].isdigit():
        return None
    fields: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        ai = _ai_at(text, at)
        if ai is None:
            return None
        at += len(ai)
        if ai in _FIXED or _MEASURE.match(ai):
            size = _FIXED.get(ai, 6)
            value = text[at:at + size]
            if len(value) != size or GS in value:
                return None
            at += size
            if text[at:at + 1] == GS:  # a separator after a fixed field is tolerated
                at += 1
        else:
            end = text.find(GS, at)
            end = len(text) if end < 0 else end
            value = text[at:end]
            if not value or len(value) > _VARIABLE[ai]:
                return None
            at = end + 1
        fields.append((ai, value))
    return _checked(fields)


def _parenthesised(text: str) -> list[tuple[str, str]] | None:
    fields = [(m.group(1), m.group(2)) for m in _PAREN.finditer(text)]
    if not fields or "".join(f"({a}){v}" for a, v in fields) != text:
        return None
    for ai, value in fields:
        if ai in _FIXED and len(value) != _FIXED[ai]:
            return None
        if ai not in _FIXED and ai not in _VARIABLE and not _MEASURE.match(ai):
            return None
    return _checked(fields)


def _checked(fields: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """Refuse a reading whose GTIN fails its check digit or whose date is no date: a
    misread, or not GS1 at all (a SKU that happens to start with digits)."""
    for ai, value in fields:
        if ai in ("01", "02") and gtin_problem(value) is not None:
            return None
        if ai in ("11", "12", "13", "15", "16", "17") and parse_date(value) is None:
            return None
    return fields or None
