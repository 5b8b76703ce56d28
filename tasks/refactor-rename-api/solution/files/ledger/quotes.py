"""Price quotes for business customers."""

from ledger.pricing import compute_total

TIER_DISCOUNTS = {"standard": 0, "silver": 5, "gold": 10}


def quote(lines, tier: str = "standard", tax_rate=0):
    try:
        discount = TIER_DISCOUNTS[tier]
    except KeyError:
        raise ValueError(f"unknown tier {tier!r}") from None
    return compute_total(lines, discount, tax_rate)
