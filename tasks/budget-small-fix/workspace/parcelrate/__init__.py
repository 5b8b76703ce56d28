"""Domestic parcel quoting."""
from .rates import RATE_CARD, ParcelTooHeavy, price_for_weight
from .weights import billable_weight


def quote(weight_kg, length_cm, width_cm, height_cm):
    """The price in EUR (a Decimal) for one parcel."""
    return price_for_weight(billable_weight(weight_kg, length_cm, width_cm, height_cm))


__all__ = ["RATE_CARD", "ParcelTooHeavy", "billable_weight", "price_for_weight", "quote"]
