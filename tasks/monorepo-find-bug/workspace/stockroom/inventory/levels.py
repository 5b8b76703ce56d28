"""Stock levels, computed from movements.

Nothing stores a stock number; the level of a SKU in a warehouse at a moment is the sum of its
movements up to (and including) that moment. Bundles have no stock of their own: their level is
how many complete bundles the components allow.
"""
from collections import defaultdict


def on_hand(movements, until=None):
    """``{(sku, warehouse): units}`` from ``movements`` up to ``until`` (a UTC datetime, inclusive)."""
    levels = defaultdict(int)
    for movement in movements:
        if until is not None and movement.moved_at > until:
            continue
        levels[(movement.sku, movement.warehouse)] += movement.quantity
    return dict(levels)


def total_on_hand(movements, sku, until=None):
    """Units of ``sku`` in all warehouses together."""
    return sum(units for (item, _), units in on_hand(movements, until).items() if item == sku)


def by_sku(levels):
    """``{sku: units}`` summed over warehouses."""
    totals = defaultdict(int)
    for (sku, _), units in levels.items():
        totals[sku] += units
    return dict(sorted(totals.items()))


def bundle_level(product, products, levels, warehouse):
    """How many complete bundles of ``product`` the components in ``warehouse`` allow."""
    if not product.is_bundle:
        return levels.get((product.sku, warehouse), 0)
    possible = None
    for sku, per_bundle in product.components():
        available = levels.get((sku, warehouse), 0) // per_bundle
        possible = available if possible is None else min(possible, available)
    return max(possible or 0, 0)


def negative_levels(levels):
    """Entries below zero: always a data problem (a sale booked before its receipt, usually)."""
    return sorted((key, units) for key, units in levels.items() if units < 0)


def movements_in(movements, start, end, kinds=None):
    """Movements with ``start <= moved_at < end``, optionally only of the given kinds."""
    return [
        movement
        for movement in movements
        if start <= movement.moved_at < end and (kinds is None or movement.kind in kinds)
    ]


def flow(movements, start, end):
    """``{sku: {kind: units}}`` over a period: the inventory report's movement table."""
    table = defaultdict(lambda: defaultdict(int))
    for movement in movements_in(movements, start, end):
        table[movement.sku][movement.kind] += movement.quantity
    return {sku: dict(kinds) for sku, kinds in sorted(table.items())}


def sold_units(movements, start, end):
    """``{sku: units sold}`` (positive numbers) over a period."""
    sold = defaultdict(int)
    for movement in movements_in(movements, start, end, kinds={"sale"}):
        sold[movement.sku] -= movement.quantity
    return dict(sold)


def out_of_stock(products, levels):
    """Active, non-bundle SKUs with no units in any warehouse."""
    totals = by_sku(levels)
    return sorted(
        product.sku
        for product in products.values()
        if product.active and not product.is_bundle and totals.get(product.sku, 0) <= 0
    )
