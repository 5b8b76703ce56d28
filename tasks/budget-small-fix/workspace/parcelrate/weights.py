"""Billable weight: the larger of actual and volumetric weight, rounded up to 0.1 kg."""
from decimal import ROUND_CEILING, Decimal

VOLUMETRIC_DIVISOR = Decimal(5000)
STEP = Decimal("0.1")


def volumetric_weight(length_cm, width_cm, height_cm):
    """Volumetric weight in kg for a box of the given outer dimensions."""
    volume = Decimal(str(length_cm)) * Decimal(str(width_cm)) * Decimal(str(height_cm))
    return volume / VOLUMETRIC_DIVISOR


def billable_weight(weight_kg, length_cm, width_cm, height_cm):
    """The weight we charge for, in kg, rounded up to the next 0.1 kg."""
    actual = Decimal(str(weight_kg))
    if actual <= 0:
        raise ValueError(f"weight must be positive, got {weight_kg!r}")
    heaviest = max(actual, volumetric_weight(length_cm, width_cm, height_cm))
    return heaviest.quantize(STEP, rounding=ROUND_CEILING)
