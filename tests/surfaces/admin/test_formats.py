"""People's formats (ui/formats.py): one rule for money, quantities, dates and statuses,
in the reader's locale, whatever page or document asks."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shopfloor.ui.formats import Formats, formats_for, negotiate

pytestmark = pytest.mark.quick


def test_money_uses_the_currencys_own_decimals_in_the_readers_locale() -> None:
    en = Formats("en_GB", "EUR")
    assert en.money("3.1671") == "€3.17"
    assert en.money(Decimal("120") * Decimal("3.1671")) == "€380.05"
    assert en.money("135.000000") == "€135.00"
    assert en.money("0.125") == "€0.13" and en.money("-0.125") == "-€0.13"  # half up
    assert Formats("de_DE", "EUR").money("1234.5") == "1.234,50\xa0€"
    assert en.money("5", "JPY").endswith("5")  # no decimals for a currency that has none
    assert en.digits("JPY") == 0 and en.digits() == 2
    assert en.money(None) == "" and en.money("n/a") == "n/a"


def test_a_unit_price_keeps_its_digits_beyond_the_currencys() -> None:
    en = Formats("en_GB", "EUR")
    assert en.price("3.1671") == "€3.1671" and en.price("3.500000") == "€3.50"
    assert en.price("12.5", "JPY") == "JP¥12.5" and en.price("1200", "JPY") == "JP¥1,200"
    assert en.price("0", "USD") == "US$0.00"
    assert Formats("de_DE").price("0.335") == "0,335\xa0€"
    assert en.price(None) == "" and en.price("n/a") == "n/a"


def test_quantities_keep_every_digit_and_drop_trailing_zeros() -> None:
    en = Formats("en", "EUR")
    assert en.quantity("2.500000") == "2.5"
    assert en.quantity("12000.125") == "12,000.125"
    assert en.quantity("0.000000") == "0"
    assert en.quantity("1E+1") == "10"
    assert en.quantity("4", "kg") == "4 kg"
    assert Formats("fr", "EUR").quantity("0.5") == "0,5"


def test_dates_follow_the_reader_and_times_the_deployments_zone() -> None:
    assert Formats("en_GB").date("2026-12-04") == "4 Dec 2026"
    assert Formats("en_US").date("2026-12-04") == "Dec 4, 2026"
    assert Formats("de_DE").date("2026-12-04T10:00:00") == "04.12.2026"
    berlin = Formats("en_GB", time_zone="Europe/Berlin").datetime("2026-11-25T13:30:00")
    assert "14:30" in berlin and berlin.endswith("Europe/Berlin")
    assert Formats("en_GB").datetime("2026-11-25T13:30:00Z").endswith("UTC")


def test_statuses_read_as_words() -> None:
    assert Formats().status("partially_received") == "Partially received"


def test_accept_language_picks_the_most_wanted_known_locale() -> None:
    assert negotiate("de-CH;q=0.9, en;q=0.8") == "de_CH"
    assert negotiate("xx-YY, fr;q=0.5, de;q=0.7") == "de"
    assert negotiate("") == negotiate(None) == "en_GB"  # the admin's own English
    assert negotiate("*;q=1, bogus") == "en_GB"
    assert formats_for("en-GB", "USD").money("1") == "US$1.00"


def test_part_of_a_pack_is_said_in_the_packs_and_pieces_a_buyer_counts() -> None:
    """Issue 29: never "0.333333 box"; a short decimal of a pack reads as it is."""
    from decimal import Decimal as D

    from shopfloor.kernel import units

    said = units.in_packs
    assert said(D("0.333333"), "box", D(3), "pcs", 0) == "1 pc of a box of 3"
    assert said(D("0.666667"), "box", D(3), "pcs", 0) == "2 pcs of a box of 3"
    assert said(D("2.333333"), "box", D(3), "pcs", 0) == "2 box + 1 pc of a box of 3"
    assert said(D("0.1"), "drum", D("25"), "kg", 3) is None  # 0.1 drum reads well
    assert said(D("2"), "box", D(3), "pcs", 0) is None
    assert said(D("0.3333"), "box", D(3), "pcs", 0) is None  # not what 1 pc stands for
    assert said(D("0.333333"), "box", D(3), "pcs", 0, stock=D(2)) is None
    assert units.read_packs("2 box + 1 pc of a box of 3") == (D("2.333333"), D(7))
    assert units.read_packs("4 box (12 pcs)") is None
    assert units.snap(D("0.666666"), D(3), 0) == D("0.666667")
    assert units.snap(D("0.5"), D(3), 0) == D("0.5")  # typed in boxes: the supplier's
