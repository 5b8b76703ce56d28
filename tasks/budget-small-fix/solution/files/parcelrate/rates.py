"""The domestic rate card and the lookup of a price by billable weight."""
import bisect
from decimal import Decimal

# (upper limit in kg, price in EUR); each band includes its upper limit.
RATE_CARD = [
    (Decimal("1"), Decimal("4.50")),
    (Decimal("2"), Decimal("6.20")),
    (Decimal("5"), Decimal("9.90")),
    (Decimal("10"), Decimal("14.00")),
    (Decimal("20"), Decimal("21.50")),
    (Decimal("31.5"), Decimal("29.00")),
]

_LIMITS = [limit for limit, _ in RATE_CARD]


class ParcelTooHeavy(ValueError):
    """The parcel is heavier than the last band of the rate card."""


def price_for_weight(weight_kg):
    """The price of the first band whose limit is at least `weight_kg`."""
    weight = Decimal(str(weight_kg))
    index = bisect.bisect_left(_LIMITS, weight)
    if index == len(RATE_CARD):
        raise ParcelTooHeavy(f"{weight} kg is over the {_LIMITS[-1]} kg limit")
    return RATE_CARD[index][1]
