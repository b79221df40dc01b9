"""Currencies: ISO 4217 codes, the company's own, and its rates by date.

A rate is company currency per unit of the foreign one, valid from its date until the
next rate of that currency. A document keeps its amounts in its own currency; the ledger
is in the company's, converted once, at the rate valid on the day stock moves.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import object_session

from shopfloor.domain.base import books
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import fmt
from shopfloor.store.tables import ExchangeRate, Meta

_CODES = """
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN
BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP
ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK
JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK
MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN
PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB
TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG
XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA YER ZAR ZMW ZWG ZWL
"""
ISO_4217 = frozenset(_CODES.split())
"""The active ISO 4217 alphabetic codes (not XTS, for testing, nor XXX, no currency)."""

DEFAULT_COMPANY = books.DEFAULT
COMPANY_KEY = books.KEY
"""The `meta` row naming the currency the books are kept in (written once, at the first
open of a database: `app/wiring.load_company_currency`)."""
_COMPANY_KEY = COMPANY_KEY


def code(value: str, fld: str = "currency") -> str:
    """An ISO 4217 code as written (three capital letters), or a coded error."""
    if value not in ISO_4217:
        hint = f"; did you mean {value.upper()}?" if value.upper() in ISO_4217 else \
            " (three capital letters, e.g. EUR, USD)"
        raise ValidationFailed(f"{value!r} is not an ISO 4217 currency code{hint}", field=fld)
    return value


def company(op: Op) -> str:
    """The company's currency: the ledger's. EUR unless the `meta` row says otherwise."""
    return books.currency(op)


def of_document(row: Any) -> str:
    """A document's currency, read off the row (its own, else the company's)."""
    if row.currency:
        return str(row.currency)
    session = object_session(row)
    found = session.get(Meta, _COMPANY_KEY) if session is not None else None
    return found.value if found is not None else DEFAULT_COMPANY


def of(op: Op, currency: str | None) -> str:
    """A document's or partner's currency: its own, else the company's."""
    return currency or company(op)


def rate_on(op: Op, currency: str | None, day: date, fld: str = "currency") -> Decimal:
    """Company currency per unit of `currency` on `day` (1 for the company's own); no rate
    valid that day refuses, naming `fld`: nothing is booked at a guessed rate."""
    if currency is None or currency == company(op):
        return Decimal(1)
    found = op.session.scalars(
        select(ExchangeRate.rate).where(ExchangeRate.currency == currency,
                                        ExchangeRate.valid_from <= day)
        .order_by(ExchangeRate.valid_from.desc()).limit(1)).first()
    if found is None:
        raise ValidationFailed(f"no exchange rate for {currency} valid on {day.isoformat()}; "
                               "set one first", field=fld,
                               details={"currency": currency, "date": day.isoformat()})
    return found


def rates_on(op: Op, day: date) -> dict[str, Decimal]:
    """Every currency's rate on `day` (one query: what a plan compares offers with)."""
    out: dict[str, Decimal] = {}
    for currency, rate in op.session.execute(
            select(ExchangeRate.currency, ExchangeRate.rate)
            .where(ExchangeRate.valid_from <= day)
            .order_by(ExchangeRate.currency, ExchangeRate.valid_from)):
        out[currency] = rate  # the latest valid_from wins
    out[company(op)] = Decimal(1)
    return out


def set_rate(op: Op, currency: str, rate: Decimal, valid_from: date) -> ExchangeRate:
    """A rate from a day on; setting the same currency and day again replaces it."""
    code(currency)
    if currency == company(op):
        raise ValidationFailed(f"{currency} is the company currency: its rate is always 1",
                               field="currency")
    if rate <= 0:
        raise ValidationFailed("a rate must be above zero", field="rate")
    row = op.session.scalars(select(ExchangeRate).where(
        ExchangeRate.currency == currency, ExchangeRate.valid_from == valid_from)).first()
    before = None
    if row is None:
        row = ExchangeRate(currency=currency, rate=rate, valid_from=valid_from,
                           created_at=op.now)
        op.session.add(row)
    else:
        before = fmt(row.rate)
        row.rate = rate
    op.session.flush()
    op.change("exchange_rate", f"{currency} from {valid_from.isoformat()}", "rate", before,
              f"{fmt(rate)} {company(op)}")
    return row
