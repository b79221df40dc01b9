"""Whole numbers typed as text (a page cursor, a form's line index, an id in a query, a
header): `str.isdigit` also passes '²' and '①', which `int` then refuses, and `int`
refuses past 4,300 digits; either would reach a person as an internal error."""

from __future__ import annotations


def whole(text: str, most_digits: int = 18) -> int | None:
    """`text` as a whole number when it is 1 to `most_digits` ASCII digits, else None."""
    if 0 < len(text) <= most_digits and text.isascii() and text.isdigit():
        return int(text)
    return None
