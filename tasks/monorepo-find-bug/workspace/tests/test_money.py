from decimal import Decimal

import pytest

from stockroom.money import allocate, format_money, net_from_gross, percent_of, round_money, to_money, vat_from_gross


def test_round_half_up():
    assert round_money(Decimal("2.345")) == Decimal("2.35")
    assert round_money(Decimal("-2.345")) == Decimal("-2.35")


def test_net_and_vat_add_up():
    for gross in ("0.01", "1.00", "19.99", "1234.56"):
        for rate in ("0.19", "0.07", "0.055", "0"):
            g, r = Decimal(gross), Decimal(rate)
            assert net_from_gross(g, r) + vat_from_gross(g, r) == g


def test_net_from_gross_examples():
    assert net_from_gross(Decimal("119.00"), Decimal("0.19")) == Decimal("100.00")
    assert net_from_gross(Decimal("10.71"), Decimal("0.19")) == Decimal("9.00")


@pytest.mark.parametrize("total,weights", [("10.00", [1, 1, 1]), ("0.05", [3, 1]), ("29.90", ["21.90", "11.90"])])
def test_allocate_sums_exactly(total, weights):
    parts = allocate(Decimal(total), [Decimal(w) for w in weights])
    assert sum(parts) == Decimal(total)


def test_allocate_largest_remainder():
    assert allocate(Decimal("10.00"), [1, 1, 1]) == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]


def test_percent_of():
    assert percent_of(Decimal("43.80"), 10) == Decimal("4.38")


def test_to_money_and_format():
    assert to_money("12,50") == Decimal("12.50")
    with pytest.raises(TypeError):
        to_money(1.5)
    assert format_money(Decimal("-1234567.891")) == "-1,234,567.89"
    assert format_money(Decimal("5"), "EUR", width=12) == "    5.00 EUR"
