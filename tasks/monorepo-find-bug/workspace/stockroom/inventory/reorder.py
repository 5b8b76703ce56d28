"""Reorder suggestions.

For each active SKU: average daily sales over the last 56 days, days of cover = on hand / daily
sales, and a suggestion to reorder when cover falls below ``REORDER_COVER_DAYS``. The suggested
quantity brings cover up to 60 days, rounded up to the supplier's case size.
"""
import math
from datetime import timedelta

from ..config import REORDER_COVER_DAYS
from .levels import by_sku, on_hand, sold_units

LOOKBACK_DAYS = 56
TARGET_COVER_DAYS = 60

#: Units per case by supplier (default 1).
CASE_SIZES = {"Papeterie Nord": 10, "Roesterei Kaiser": 6, "Verlag Ostwind": 5, "KidsWear BV": 4}


def daily_sales(movements, sku, until):
    start = until - timedelta(days=LOOKBACK_DAYS)
    return sold_units(movements, start, until).get(sku, 0) / LOOKBACK_DAYS


def cover_days(units_on_hand, per_day):
    if per_day <= 0:
        return math.inf
    return units_on_hand / per_day


def suggested_quantity(units_on_hand, per_day, case_size=1):
    """Units to order so that cover reaches TARGET_COVER_DAYS, in whole cases."""
    needed = per_day * TARGET_COVER_DAYS - units_on_hand
    if needed <= 0:
        return 0
    return math.ceil(needed / case_size) * case_size


def suggestions(products, movements, until):
    """``[(sku, on_hand, per_day, cover_days, quantity)]`` for SKUs to reorder, least cover first."""
    levels = by_sku(on_hand(movements, until))
    rows = []
    for product in products.values():
        if not product.active or product.is_bundle:
            continue
        per_day = daily_sales(movements, product.sku, until)
        have = levels.get(product.sku, 0)
        cover = cover_days(have, per_day)
        if cover >= REORDER_COVER_DAYS:
            continue
        case = CASE_SIZES.get(product.supplier, 1)
        rows.append((product.sku, have, round(per_day, 2), round(cover, 1), suggested_quantity(have, per_day, case)))
    rows.sort(key=lambda row: (row[3], row[0]))
    return rows


def by_supplier(products, rows):
    """Groups suggestion rows by supplier: ``{supplier: [row, ...]}``."""
    grouped = {}
    for row in rows:
        supplier = products[row[0]].supplier or "(unknown)"
        grouped.setdefault(supplier, []).append(row)
    return dict(sorted(grouped.items()))
