"""Cycle counts: which locations to count this week, and turning counts into adjustments.

Every active SKU is counted at least once a quarter; fast movers (top 20 % by units sold) once a
month. A count differing from the book level by more than the tolerance produces an adjustment
movement; smaller differences are written off in the monthly batch.
"""
from collections import defaultdict

from ..models import StockMovement

TOLERANCE_UNITS = 2
WEEKS_PER_QUARTER = 13


def fast_movers(sold, share=0.2):
    """The SKUs making up the top ``share`` of SKUs by units sold."""
    ranked = sorted(sold.items(), key=lambda item: (-item[1], item[0]))
    count = max(1, int(len(ranked) * share)) if ranked else 0
    return {sku for sku, _ in ranked[:count]}


def schedule(skus, sold, week_number):
    """The SKUs to count in ISO week ``week_number``."""
    fast = fast_movers(sold)
    slow = sorted(sku for sku in skus if sku not in fast)
    this_week = {sku for index, sku in enumerate(slow) if index % WEEKS_PER_QUARTER == week_number % WEEKS_PER_QUARTER}
    this_week |= {sku for index, sku in enumerate(sorted(fast)) if index % 4 == week_number % 4}
    return sorted(this_week)


def differences(counts, levels):
    """``[(sku, warehouse, book, counted, difference)]`` for every count."""
    rows = []
    for (sku, warehouse), counted in sorted(counts.items()):
        book = levels.get((sku, warehouse), 0)
        rows.append((sku, warehouse, book, counted, counted - book))
    return rows


def adjustments(counts, levels, moved_at, next_id):
    """Adjustment movements for differences beyond the tolerance.

    ``next_id`` is a callable returning fresh movement ids.
    """
    movements = []
    for sku, warehouse, _, _, difference in differences(counts, levels):
        if abs(difference) > TOLERANCE_UNITS:
            movements.append(
                StockMovement(next_id(), sku, warehouse, "adjustment", difference, moved_at, reference="cycle count")
            )
    return movements


def write_off_batch(counts, levels):
    """``{warehouse: units}`` of small differences to write off at month end."""
    batch = defaultdict(int)
    for _, warehouse, _, _, difference in differences(counts, levels):
        if 0 < abs(difference) <= TOLERANCE_UNITS:
            batch[warehouse] += difference
    return dict(batch)
