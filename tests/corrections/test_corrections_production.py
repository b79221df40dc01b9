"""A manufacturing order's consumption corrected after the fact, by hand on both databases:
the component difference moves at its costs, the product is re-costed as if consumption
had been right, what already shipped is a recorded variance; and it reverts."""

from __future__ import annotations

from decimal import Decimal as D

from sqlalchemy import select

from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Variance
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import apply, ledger_mismatches
from tests.lots.test_lots import refused


def _adjusted(reg: Registry) -> D:
    with reg.store.reading() as s:
        return sum(s.scalars(select(Variance.amount)).all(), D(0))


def test_consumption_corrected_recosts_the_product(registry: Registry, given: Given) -> None:
    given.company()
    given.recipe("P1", {"M1": "2", "M2": "1"})
    given.stock({"M1": ("10", "1.5"), "M2": ("3", "4")})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="2",
               location="MAIN")["number"]
    apply(registry, "complete_manufacturing_order", number=mo)
    assert stock(registry, "P1") == (D(2), D(0), D(7))  # 2 x 1.5 + 4
    given.so({"P1": ("1", "20")})
    apply(registry, "fulfill_order", number="SO-00001")

    # 5 of M1 were used, not 4: 1 more at 1.5 = 1.5 over 2 made = 0.75 a unit -> 7.75;
    # the one shipped left 0.75 too cheap, the one here is re-costed
    done = apply(registry, "correct_manufacturing_order", number=mo,
                 consumed=[{"sku": "M1", "quantity": "5"}])
    assert done["completed_quantity"] == "2"
    assert stock(registry, "M1") == (D(5), D(0), D("1.5"))
    assert stock(registry, "P1") == (D(1), D(0), D("7.75"))
    assert _adjusted(registry) == D("0.75")
    # and no M2 was used at all: 2 back at 4 = -8, -4 a unit -> 3.75 (= 5 x 1.5 / 2)
    fix = apply(registry, "correct_manufacturing_order", number=mo,
                consumed=[{"sku": "M2", "quantity": "0"}])
    assert stock(registry, "M2") == (D(3), D(0), D(4))
    assert stock(registry, "P1") == (D(1), D(0), D("3.75"))
    assert _adjusted(registry) == D("-3.25")  # the shipped one left at 7, worth 3.75
    assert not ledger_mismatches(registry)

    err = refused(registry, "correct_manufacturing_order", number=mo,
                  consumed=[{"sku": "M2", "quantity": "0"}])
    assert (err.code, err.field) == ("validation_error", "consumed[0].quantity")
    err = refused(registry, "correct_manufacturing_order", number=mo,
                  consumed=[{"sku": "P1", "quantity": "1"}])
    assert (err.code, err.field) == ("validation_error", "consumed[0].sku")

    # nothing moved since the last fix: it reverts exactly, its adjustment answered
    apply(registry, "revert_operation", operation_id=fix["operation_id"])
    assert stock(registry, "M2") == (D(1), D(0), D(4))
    assert stock(registry, "P1") == (D(1), D(0), D("7.75"))
    assert _adjusted(registry) == D("0.75")
    # the first fix cannot be re-averaged back once P1 has moved since
    lost = given.stock({"P1": "-1"}, reason="lost")
    err = refused(registry, "revert_operation", operation_id=done["operation_id"])
    assert err.code == "conflict" and "correct it again" in err.message
    assert lost["number"] in err.message
    # with that reverted too, it goes: all as before the first fix
    apply(registry, "revert_operation", operation_id=lost["operation_id"])
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert stock(registry, "M1") == (D(6), D(0), D("1.5"))
    assert stock(registry, "P1") == (D(1), D(0), D(7))
    assert _adjusted(registry) == 0
    assert not ledger_mismatches(registry)


def test_fewer_made_takes_back_the_by_products_the_undone_units_gave(
        registry: Registry, given: Given) -> None:
    """P1 = 2 M1 @ 1.50, giving 1 OFFCUT a unit that carries 10%. 4 made: 12.00 consumed,
    the offcuts 1.20 (0.30 each), the product 10.80 (2.70 each). Corrected to 2 made: 2 P1
    leave at 2.70, 4 M1 come back at 1.50 and 2 OFFCUT leave at 0.30, so the stock is worth
    what it was (6.00 - 5.40 - 0.60 = 0): no value is made from nothing."""
    given.company()
    given.item("OFFCUT")
    apply(registry, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "2"}],
          by_products=[{"sku": "OFFCUT", "quantity": "1", "cost_share_percent": "10"}])
    given.stock({"M1": ("10", "1.5")})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="4",
               location="MAIN")["number"]
    apply(registry, "complete_manufacturing_order", number=mo)
    assert stock(registry, "OFFCUT") == (D(4), D(0), D("0.3"))
    assert stock(registry, "P1") == (D(4), D(0), D("2.7"))

    fewer = apply(registry, "correct_manufacturing_order", number=mo, completed_quantity="2")
    assert stock(registry, "M1") == (D(6), D(4), D("1.5"))  # the 2 still to make commit it
    assert stock(registry, "P1") == (D(2), D(0), D("2.7"))
    assert stock(registry, "OFFCUT") == (D(2), D(0), D("0.3"))
    worth = sum((q * c for q, _, c in (stock(registry, s) for s in ("M1", "P1", "OFFCUT"))),
                D(0))
    assert worth == D(15)  # the 10 M1 at 1.50 counted in, transformed, never made more
    assert not ledger_mismatches(registry)

    apply(registry, "revert_operation", operation_id=fewer["operation_id"])
    assert stock(registry, "OFFCUT") == (D(4), D(0), D("0.3"))
    assert stock(registry, "P1") == (D(4), D(0), D("2.7"))
    assert not ledger_mismatches(registry)
