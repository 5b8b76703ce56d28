from datetime import date
from decimal import Decimal

import pytest

from stockroom.tax import engine
from stockroom.tax.regions import REGIONS

MARCH = date(2024, 3, 15)


@pytest.mark.parametrize(
    "country,category,rate",
    [
        ("DE", "standard", "0.19"), ("DE", "food", "0.07"), ("FR", "books", "0.055"),
        ("IT", "books", "0.04"), ("IE", "children_clothing", "0.00"), ("DK", "food", "0.25"),
        ("LU", "children_clothing", "0.03"), ("SE", "books", "0.06"),
    ],
)
def test_rates(country, category, rate):
    assert engine.rate(country, category, MARCH) == Decimal(rate)


def test_rate_history_de_2020():
    assert engine.rate("DE", "standard", date(2020, 8, 1)) == Decimal("0.16")
    assert engine.rate("DE", "food", date(2021, 1, 1)) == Decimal("0.07")


@pytest.mark.parametrize(
    "country,category,gross,net",
    [
        ("DE", "food", "107.00", "100.00"), ("DE", "standard", "119.00", "100.00"),
        ("FR", "food", "105.50", "100.00"), ("IT", "standard", "122.00", "100.00"),
        ("AT", "books", "110.00", "100.00"), ("IE", "food", "50.00", "50.00"),
    ],
)
def test_net_amounts(country, category, gross, net):
    assert engine.net_amount(Decimal(gross), country, category, MARCH) == Decimal(net)


def test_exports_and_reverse_charge_have_no_vat():
    assert engine.net_amount(Decimal("50.00"), "CH", "standard", MARCH) == Decimal("50.00")
    assert engine.net_amount(Decimal("50.00"), "FR", "standard", MARCH, reverse_charge=True) == Decimal("50.00")


@pytest.mark.parametrize(
    "vat_id", ["DE188432775", "FR66367551836", "IT38074241209", "BE0287610839", "DK80903146", "ATU13585627"]
)
def test_valid_vat_ids(vat_id):
    assert REGIONS[vat_id[:2]].validate_vat_id(vat_id)


def test_invalid_vat_ids():
    assert not REGIONS["DE"].validate_vat_id("DE188432776")
    assert not REGIONS["IT"].validate_vat_id("IT3807424120")
