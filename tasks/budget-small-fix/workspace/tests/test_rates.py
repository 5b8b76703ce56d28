from decimal import Decimal

import pytest

from parcelrate import ParcelTooHeavy, billable_weight, quote


def test_light_parcel():
    assert quote(0.4, 20, 15, 5) == Decimal("4.50")


def test_middle_of_band():
    assert quote(1.4, 30, 20, 10) == Decimal("6.20")
    assert quote(3, 30, 20, 10) == Decimal("9.90")


def test_volumetric_weight_wins():
    # 60 x 40 x 40 / 5000 = 19.2 kg volumetric
    assert billable_weight(4, 60, 40, 40) == Decimal("19.2")
    assert quote(4, 60, 40, 40) == Decimal("21.50")


def test_rounds_up_to_tenth():
    assert billable_weight(1.01, 10, 10, 10) == Decimal("1.1")


def test_too_heavy():
    with pytest.raises(ParcelTooHeavy):
        quote(40, 30, 30, 30)
