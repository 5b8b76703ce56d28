"""Reservations: units promised to paid orders that have not been picked yet.

Available stock = on hand - reserved. The webshop shows a product as available while available
stock is positive; marketplaces get a 10 % safety margin because their stock sync runs only every
30 minutes.
"""
from collections import defaultdict

from ..catalog.bundles import expand_units
from ..orders.fulfillment import preferred_warehouse

MARKETPLACE_SAFETY = 0.9


def reserved(orders, products):
    """``{(sku, warehouse): units}`` reserved by paid (not yet shipped) orders."""
    result = defaultdict(int)
    for order in orders:
        if order.status != "paid":
            continue
        warehouse = preferred_warehouse(order.ship_country)
        for line in order.lines:
            for sku, units in expand_units(products[line.sku], line.quantity, products):
                result[(sku, warehouse)] += units
    return dict(result)


def available(levels, reservations):
    """``{(sku, warehouse): units}`` free to sell."""
    keys = set(levels) | set(reservations)
    return {key: levels.get(key, 0) - reservations.get(key, 0) for key in sorted(keys)}


def marketplace_quantity(available_units):
    """The quantity we publish on marketplaces for a given available quantity."""
    if available_units <= 0:
        return 0
    return int(available_units * MARKETPLACE_SAFETY)


def oversold(levels, reservations):
    """Entries where more is reserved than on hand."""
    return sorted(
        (key, reservations[key] - levels.get(key, 0))
        for key in reservations
        if reservations[key] > levels.get(key, 0)
    )


def reservation_report(orders, products, levels):
    """Rows ``(sku, warehouse, on_hand, reserved, available)`` for reserved SKUs."""
    reservations = reserved(orders, products)
    rows = []
    for (sku, warehouse), units in sorted(reservations.items()):
        have = levels.get((sku, warehouse), 0)
        rows.append((sku, warehouse, have, units, have - units))
    return rows
