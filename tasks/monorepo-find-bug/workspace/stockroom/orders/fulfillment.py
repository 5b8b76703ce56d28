"""Pick lists: what to take from which warehouse for paid orders.

Orders ship from Berlin (BER) unless the destination is in the Benelux, which Rotterdam (RTM)
serves. A bundle is picked as its components. When the preferred warehouse lacks stock, the line
is picked from the other one if it has enough; otherwise the line is backordered.
"""
from collections import defaultdict

from ..catalog.bundles import expand_units

RTM_COUNTRIES = frozenset({"NL", "BE", "LU"})


def preferred_warehouse(country):
    return "RTM" if country in RTM_COUNTRIES else "BER"


def other_warehouse(warehouse):
    return "BER" if warehouse == "RTM" else "RTM"


def needed_units(order, products):
    """``{component_sku: units}`` for an order (bundles expanded)."""
    needed = defaultdict(int)
    for line in order.lines:
        for sku, units in expand_units(products[line.sku], line.quantity, products):
            needed[sku] += units
    return dict(needed)


def plan(order, products, on_hand):
    """Plans picks for one order.

    ``on_hand`` is ``{(sku, warehouse): units}`` and is updated in place as units are allocated.
    Returns ``(picks, backorders)``: ``picks`` is ``[(warehouse, sku, units)]``, ``backorders`` is
    ``[(sku, units)]``.
    """
    first = preferred_warehouse(order.ship_country)
    picks = []
    backorders = []
    for sku, units in sorted(needed_units(order, products).items()):
        for warehouse in (first, other_warehouse(first)):
            available = on_hand.get((sku, warehouse), 0)
            if available >= units:
                on_hand[(sku, warehouse)] = available - units
                picks.append((warehouse, sku, units))
                break
        else:
            backorders.append((sku, units))
    return picks, backorders


def pick_lists(orders, products, on_hand):
    """``{warehouse: [(order_id, sku, units)]}`` for paid orders, oldest first."""
    lists = defaultdict(list)
    remaining = dict(on_hand)
    backordered = {}
    for order in sorted(orders, key=lambda o: o.placed_at):
        if order.status != "paid":
            continue
        picks, backorders = plan(order, products, remaining)
        for warehouse, sku, units in picks:
            lists[warehouse].append((order.order_id, sku, units))
        if backorders:
            backordered[order.order_id] = backorders
    return dict(lists), backordered


def parcel_weight(order, products):
    """Total product weight of an order in grams (packaging is added by ``shipping.packaging``)."""
    grams = 0
    for sku, units in needed_units(order, products).items():
        grams += products[sku].weight_g * units
    return grams
