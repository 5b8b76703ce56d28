"""Choosing the carrier for a parcel.

We take the cheapest quote among the carriers that serve the destination, with two rules on top:

- parcels from the Rotterdam warehouse (Benelux destinations) may use PostNL, others may not;
- GLS takes business customers only.

Ties go to the carrier listed first in ``PREFERENCE``.
"""
from ..errors import NoCarrier
from ..orders.fulfillment import preferred_warehouse
from .carriers import CARRIERS
from .packaging import shipping_weight

PREFERENCE = ("dhl", "dpd", "postnl", "colissimo", "gls", "ups")


def eligible(carrier_code, country, customer):
    module = CARRIERS[carrier_code]
    if not module.serves(country):
        return False
    if carrier_code == "postnl" and preferred_warehouse(country) != "RTM":
        return False
    if carrier_code == "gls" and not customer.is_business:
        return False
    return True


def quotes(country, weight_g, customer, length_mm=0):
    """``[(price, carrier_code)]`` for every eligible carrier that can take the parcel."""
    found = []
    for code in PREFERENCE:
        if not eligible(code, country, customer):
            continue
        price = CARRIERS[code].quote(country, weight_g, length_mm)
        if price is not None:
            found.append((price, code))
    return found


def cheapest(country, weight_g, customer, length_mm=0):
    """``(price, carrier_code)`` of the cheapest eligible carrier; NoCarrier if there is none."""
    found = quotes(country, weight_g, customer, length_mm)
    if not found:
        raise NoCarrier(f"no carrier takes {weight_g} g to {country}")
    rank = {code: index for index, code in enumerate(PREFERENCE)}
    return min(found, key=lambda item: (item[0], rank[item[1]]))


def carrier_for_order(order, dataset):
    """``(price, carrier_code)`` for shipping ``order`` as one parcel."""
    customer = dataset.customers[order.customer_id]
    weight = shipping_weight(order, dataset.products)
    return cheapest(order.ship_country, weight, customer)


def expected_costs(orders, dataset):
    """``{order_id: (price, carrier_code)}``; orders no carrier can take are left out."""
    result = {}
    for order in orders:
        try:
            result[order.order_id] = carrier_for_order(order, dataset)
        except NoCarrier:
            continue
    return result
