"""Money, quantities and times as people read them (issue 29), for euros, dollars and yen
in German, English and French: money in the currency's minor units (yen none), a cost
per unit up to four decimals, quantities with every digit and no trailing zeros, a day
and a range of times in the company's zone; and the summaries' own money, in English."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from shopfloor.kernel.text import money, unit_cost
from shopfloor.ui.formats import Formats

pytestmark = pytest.mark.quick

NBSP, NNBSP = "\xa0", "\u202f"

MONEY = {  # 1234.565 in each locale and currency: half up to the currency's minor units
    ("en_GB", "EUR"): "€1,234.57", ("en_GB", "USD"): "US$1,234.57",
    ("en_GB", "JPY"): "JP¥1,235",
    ("de_DE", "EUR"): f"1.234,57{NBSP}€", ("de_DE", "USD"): f"1.234,57{NBSP}$",
    ("de_DE", "JPY"): f"1.235{NBSP}¥",
    ("fr_FR", "EUR"): f"1{NNBSP}234,57{NBSP}€", ("fr_FR", "USD"): f"1{NNBSP}234,57{NBSP}$US",
    ("fr_FR", "JPY"): f"1{NNBSP}235{NBSP}JPY",
}


@pytest.mark.parametrize(("locale", "currency"), sorted(MONEY))
def test_money_has_its_currencys_minor_units_in_the_readers_locale(locale: str,
                                                                   currency: str) -> None:
    assert Formats(locale).money("1234.565", currency) == MONEY[(locale, currency)]


@pytest.mark.parametrize("locale", ["en_GB", "de_DE", "fr_FR"])
def test_a_unit_cost_has_up_to_four_decimals_and_no_trailing_zeros(locale: str) -> None:
    f = Formats(locale)
    comma = "." if locale == "en_GB" else ","
    assert f"0{comma}0322" in f.unit_cost("0.032191", "EUR")  # rounded half up at four
    assert f"1{comma}66" in f.unit_cost("1.660000", "EUR")  # the currency's two kept
    assert f"3{comma}50" in f.unit_cost("3.5", "USD")
    assert f"12{comma}5" in f.unit_cost("12.5", "JPY") and f"12{comma}50" not in \
        f.unit_cost("12.5", "JPY")  # yen: no minor units, the cost's own half kept
    assert not any(mark in f.unit_cost("7", "JPY") for mark in ".,")  # JP¥7, never 7.00


@pytest.mark.parametrize(("locale", "want"), [("en_GB", "1,234.5"), ("de_DE", "1.234,5"),
                                              ("fr_FR", f"1{NNBSP}234,5")])
def test_quantities_keep_their_digits_without_trailing_zeros(locale: str, want: str) -> None:
    assert Formats(locale).quantity("1234.500000") == want
    assert Formats(locale).quantity("0.000000") == "0"


@pytest.mark.parametrize(("locale", "one_day", "two_days"), [
    ("en_GB", "Fri 4 Dec, 10:23\u201311:55", "Fri 4 Dec, 10:23 \u2013 Sat 5 Dec, 08:00"),
    ("de_DE", "Fr., 4. Dez., 10:23\u201311:55", "Fr., 4. Dez., 10:23 \u2013 Sa., 5. Dez., 08:00"),
    ("fr_FR", "ven. 4 déc., 10:23\u201311:55", "ven. 4 déc., 10:23 \u2013 sam. 5 déc., 08:00"),
])
def test_a_range_of_times_reads_in_words_in_the_companys_zone(locale: str, one_day: str,
                                                              two_days: str) -> None:
    """It read "2026-12-04T10:23+00:00 -> 2026-12-04T11:55+00:00"."""
    paris = Formats(locale, time_zone="Europe/Paris")  # UTC+1 in December
    assert paris.range("2026-12-04T09:23+00:00", "2026-12-04T10:55+00:00") == one_day
    assert paris.range("2026-12-04T09:23Z", "2026-12-05T07:00Z") == two_days
    assert paris.moment("2026-12-04T09:23:00Z") == one_day.split("\u2013")[0]


def test_a_summarys_money_is_in_english_with_the_currencys_sign() -> None:
    """A summary said "total 1020" for a dollar order."""
    assert money(D("1020"), "USD") == "US$1,020.00"
    assert money(D("332.027971"), "EUR") == "€332.03"
    assert money(D("1200.5"), "JPY") == "JP¥1,201"
    assert unit_cost(D("55.337995"), "EUR") == "€55.338"
    assert unit_cost(D("0.0322"), "EUR") == "€0.0322" and unit_cost(D("3.5"), "USD") == \
        "US$3.50"
    assert unit_cost(D("1E+2"), "EUR") == "€100.00"
