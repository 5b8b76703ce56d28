from decimal import Decimal

import pytest

from parcelrate import ParcelTooHeavy, billable_weight, price_for_weight, quote

CARD = [
    ("1", "4.50"),
    ("2", "6.20"),
    ("5", "9.90"),
    ("10", "14.00"),
    ("20", "21.50"),
    ("31.5", "29.00"),
]


@pytest.mark.parametrize("limit,price", CARD)
def test_band_includes_its_limit(limit, price):
    assert price_for_weight(Decimal(limit)) == Decimal(price)


@pytest.mark.parametrize("index", range(len(CARD) - 1))
def test_just_over_a_limit_is_next_band(index):
    limit = Decimal(CARD[index][0])
    assert price_for_weight(limit + Decimal("0.1")) == Decimal(CARD[index + 1][1])


def test_reported_parcel():
    assert quote(2.0, 25, 20, 10) == Decimal("6.20")
    assert quote(2, 25, 20, 10) == Decimal("6.20")


def test_volumetric_boundary():
    # 50 x 40 x 25 / 5000 = exactly 10 kg volumetric
    assert billable_weight(3, 50, 40, 25) == Decimal("10.0")
    assert quote(3, 50, 40, 25) == Decimal("14.00")


def test_rounding_then_band():
    assert quote(0.95, 10, 10, 10) == Decimal("4.50")
    assert quote(1.01, 10, 10, 10) == Decimal("6.20")
    assert quote(4.91, 10, 10, 10) == Decimal("9.90")


def test_middle_values():
    assert quote(0.1, 10, 10, 10) == Decimal("4.50")
    assert quote(7.5, 30, 30, 30) == Decimal("14.00")
    assert quote(25, 40, 40, 40) == Decimal("29.00")


def test_heaviest_allowed_and_over():
    assert quote(31.5, 40, 40, 40) == Decimal("29.00")
    with pytest.raises(ParcelTooHeavy):
        quote(31.6, 40, 40, 40)
    with pytest.raises(ParcelTooHeavy):
        price_for_weight(Decimal("100"))


def test_bad_weight():
    with pytest.raises(ValueError):
        quote(0, 10, 10, 10)
