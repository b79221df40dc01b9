"""Keys people type (SKUs, location codes, lot and document numbers, partner names): one
stored form, and a look-alike fold to warn before a key is created that people would
take for one that exists.

`PLAIN-1` typed with a Cyrillic Er for its P and `PLAIN-1` are different strings nobody
can tell apart on a screen or a label, and `PLAIN-1` with a zero-width space inside looks
like it too. So a key is stored and looked up in Unicode NFKC (`PLAIN-2` typed in
fullwidth letters is `PLAIN-2`, found typed either way), a key with an invisible or
bidirectional control character is refused, and a new key whose skeleton equals an
existing one's is warned about.

The skeleton follows Unicode TR39's (decomposed, each character to its prototype,
decomposed again; NFKD rather than NFD, so an older key stored in fullwidth letters folds
like the one typed today) with a table of the confusables that matter for keys written
in Latin letters: Cyrillic, Greek and a few other letters that look Latin, and dashes
that look like a hyphen; then case folded, so a key differing only in case matches as
well. ASCII maps to itself: `O` and `0`, `l` and `1` are distinct in part numbers on
purpose, and a warning on every such pair would teach people to ignore it. The table is
ours, not a dependency's: the fold is stored in indexed columns, so a change of it needs
a migration that recomputes them, not a package upgrade that silently desynchronises
them.
"""

from __future__ import annotations

import unicodedata

# What a key may not contain, by general category: nothing in a key may be invisible.
_REFUSED = {
    "Cc": "a control character",
    "Cf": "an invisible formatting or bidirectional control character",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
# Default-ignorable or blank code points outside those categories: combining grapheme
# joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation selectors, braille
# blank, variation selectors.
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)


class Retyped(str):
    """A key whose stored form differs from what was typed (`typed`), so that creating
    it can say which key will be stored. It is that stored form in every other way."""

    typed: str

    def __new__(cls, key: str, typed: str = "") -> Retyped:
        self = super().__new__(cls, key)
        self.typed = typed
        return self


def refusal(text: str) -> str | None:
    """Why `text` cannot be a key, naming the first invisible character in it; None if
    it can."""
    for at, ch in enumerate(text, 1):
        what = "an invisible character" if ch in _INVISIBLE \
            else _REFUSED.get(unicodedata.category(ch))
        if what is not None:
            name = unicodedata.name(ch, "unnamed")
            return (f"contains {what} (U+{ord(ch):04X} {name}) at position {at}: "
                    "keys must be visible characters, retype it")
    return None


def normal(text: str, limit: int) -> str:
    """The stored form of a typed key (already stripped and free of ASCII controls):
    NFKC, stripped again, at most `limit` characters; ValueError naming an invisible
    character. Plain ASCII is its own form and costs one check: the hot paths (a 200-line
    receipt's SKUs) pay nothing more."""
    if text.isascii():
        return text
    problem = refusal(text)
    if problem is not None:
        raise ValueError(problem)
    key = unicodedata.normalize("NFKC", text).strip()
    if not key:
        raise ValueError("is blank once normalised")
    if len(key) > limit:
        raise ValueError(f"is {len(key)} characters once normalised; at most {limit}")
    return key if key == text else Retyped(key, text)


def cleaned(text: str) -> str:
    """A stored key as it would be typed today: invisible characters dropped, NFKC,
    stripped (what a migration renames an older key to, when nothing else has it)."""
    visible = "".join(ch for ch in text if not (
        ch in _INVISIBLE or unicodedata.category(ch) in _REFUSED))
    return unicodedata.normalize("NFKC", visible).strip()


_PROTOTYPES = {
    # Cyrillic letters that look Latin (or like a digit)
    0x0410: "A", 0x0412: "B", 0x0415: "E", 0x0417: "3", 0x041A: "K", 0x041C: "M", 0x041D: "H",
    0x041E: "O", 0x0420: "P", 0x0421: "C", 0x0422: "T", 0x0423: "Y", 0x0425: "X", 0x0405: "S",
    0x0406: "I", 0x0408: "J", 0x04AE: "Y", 0x04C0: "I", 0x051A: "Q", 0x051C: "W", 0x0474: "V",
    0x0430: "a", 0x0431: "6", 0x0433: "r", 0x0435: "e", 0x043E: "o", 0x043F: "n", 0x0440: "p",
    0x0441: "c", 0x0443: "y", 0x0445: "x", 0x0455: "s", 0x0456: "i", 0x0458: "j", 0x04BB: "h",
    0x0501: "d", 0x051B: "q", 0x051D: "w", 0x04CF: "l", 0x04AF: "y", 0x0475: "v",
    # Greek letters that look Latin
    0x0391: "A", 0x0392: "B", 0x0395: "E", 0x0396: "Z", 0x0397: "H", 0x0399: "I", 0x039A: "K",
    0x039C: "M", 0x039D: "N", 0x039F: "O", 0x03A1: "P", 0x03A4: "T", 0x03A5: "Y", 0x03A7: "X",
    0x03F9: "C", 0x037F: "J", 0x03D2: "Y", 0x03B1: "a", 0x03B3: "y", 0x03B9: "i", 0x03BD: "v",
    0x03BF: "o", 0x03C1: "p", 0x03C3: "o", 0x03C5: "u", 0x03F2: "c", 0x03F3: "j",
    # Armenian and non-ASCII Latin letters that look like plain Latin ones
    0x0585: "o", 0x057D: "u", 0x0570: "h", 0x0578: "n", 0x0566: "q", 0x0131: "i", 0x0251: "a",
    0x0261: "g", 0x01C0: "l",
    # dashes and slashes that look like a hyphen-minus and a solidus
    0x2010: "-", 0x2012: "-", 0x2013: "-", 0x2043: "-", 0x2212: "-", 0x02D7: "-", 0x2044: "/",
    0x2215: "/",
}
_FOLD = str.maketrans(_PROTOTYPES)


def skeleton(key: str) -> str:
    """What `key` looks like: two keys with one skeleton are hard to tell apart (same
    letters up to case, or letters from other scripts that look like them)."""
    if key.isascii():
        return key.lower()
    folded = unicodedata.normalize("NFKD", key).translate(_FOLD)
    return unicodedata.normalize("NFKD", folded.casefold())


def likeness(key: str, other: str, named: str) -> str:
    """How `key` resembles `other` (the same skeleton), which the sentence calls `named`."""
    if key.casefold() == other.casefold():
        return f"{key!r} differs only in case from {named}"
    foreign = [ch for ch in dict.fromkeys(key) if not ch.isascii()][:3]
    shown = ", ".join(f"{ch} {unicodedata.name(ch, f'U+{ord(ch):04X}')}" for ch in foreign)
    return f"{key!r} looks like {named} but is another key" + (f" (it has {shown})" if shown
                                                                 else "")
