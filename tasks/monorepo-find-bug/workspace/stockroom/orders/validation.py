"""Checks an imported order before it enters fulfilment.

The checks collect every problem instead of stopping at the first, so that the import log shows
the whole picture. ``validate`` raises InvalidOrder; ``problems`` returns the list.
"""
from ..config import CHANNELS, EU_COUNTRIES, EXPORT_COUNTRIES
from ..errors import InvalidOrder
from ..tax.engine import region_for
from .status import ALL_STATUSES

#: The currency each destination normally pays in on the webshop.
HOME_CURRENCY = {
    "DK": "DKK",
    "PL": "PLN",
    "SE": "SEK",
    "GB": "GBP",
    "CH": "CHF",
    "NO": "NOK",
}

MAX_LINES = 200
MAX_QUANTITY = 5000


def problems(order, dataset):
    """Every problem with ``order`` as a list of strings (empty when the order is fine)."""
    found = []
    if order.channel not in CHANNELS:
        found.append(f"unknown channel {order.channel!r}")
    if order.status not in ALL_STATUSES:
        found.append(f"unknown status {order.status!r}")
    if order.customer_id not in dataset.customers:
        found.append(f"unknown customer {order.customer_id!r}")
    country = order.ship_country
    if country not in EU_COUNTRIES and country not in EXPORT_COUNTRIES:
        found.append(f"we do not ship to {country!r}")
    elif country in EU_COUNTRIES:
        try:
            region_for(country)
        except Exception as error:  # noqa: BLE001 - reported, not raised
            found.append(str(error))
    found.extend(_line_problems(order, dataset))
    found.extend(_currency_problems(order, dataset))
    return found


def _line_problems(order, dataset):
    found = []
    if not order.lines:
        found.append("no lines")
    if len(order.lines) > MAX_LINES:
        found.append(f"{len(order.lines)} lines (at most {MAX_LINES})")
    numbers = [line.line_no for line in order.lines]
    if len(numbers) != len(set(numbers)):
        found.append("duplicate line numbers")
    for line in order.lines:
        if line.sku not in dataset.products:
            found.append(f"line {line.line_no}: unknown SKU {line.sku}")
        elif not dataset.products[line.sku].active and order.channel != "pos":
            found.append(f"line {line.line_no}: {line.sku} is not sold any more")
        if not 0 < line.quantity <= MAX_QUANTITY:
            found.append(f"line {line.line_no}: quantity {line.quantity}")
        if line.unit_price < 0:
            found.append(f"line {line.line_no}: negative price")
    return found


def _currency_problems(order, dataset):
    found = []
    expected = HOME_CURRENCY.get(order.ship_country, "EUR")
    if order.channel == "web" and order.currency != expected:
        found.append(f"webshop order to {order.ship_country} in {order.currency}, expected {expected}")
    if order.currency != "EUR" and (order.month, order.currency) not in dataset.rates:
        found.append(f"no exchange rate for {order.currency} in {order.month}")
    return found


def validate(order, dataset):
    """Raises InvalidOrder listing every problem, or returns None."""
    found = problems(order, dataset)
    if found:
        raise InvalidOrder(order.order_id, found)


def invalid_orders(orders, dataset):
    """``{order_id: [problems]}`` for the orders that have any."""
    result = {}
    for order in orders:
        found = problems(order, dataset)
        if found:
            result[order.order_id] = found
    return result
