"""Revenue reports."""

from collections import defaultdict
from decimal import Decimal

from ledger.pricing import compute_total


def revenue_report(orders) -> dict:
    """Revenue per customer, from orders shaped like
    {"customer": str, "lines": [(price, qty), ...], "discount_pct": n, "tax_rate": r}."""
    totals = defaultdict(lambda: Decimal(0))
    for order in orders:
        totals[order["customer"]] += compute_total(
            order["lines"],
            order.get("discount_pct", 0),
            order.get("tax_rate", 0),
        )
    return dict(sorted(totals.items()))
