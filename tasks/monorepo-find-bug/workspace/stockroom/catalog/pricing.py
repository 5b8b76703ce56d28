"""Prices: B2C list prices, B2B tiers, and price checks.

List prices include German VAT (19 % or 7 %). Business customers buy at tier prices computed from
the net list price; the order system stores the price charged on each line, so these functions are
used for quotes and for checking imported orders, not for reporting.
"""
from decimal import Decimal

from ..money import net_from_gross, percent_of, round_money

#: German VAT rates used to derive net list prices.
HOME_RATES = {
    "standard": Decimal("0.19"),
    "food": Decimal("0.07"),
    "books": Decimal("0.07"),
    "children_clothing": Decimal("0.19"),
}

#: B2B volume tiers: (minimum quantity per line, discount in percent on the net list price).
B2B_TIERS = ((1, 0), (10, 5), (50, 10), (200, 15))


def net_list_price(product):
    """The product's list price without German VAT."""
    return net_from_gross(product.list_price, HOME_RATES[product.vat_category])


def tier_discount(quantity):
    """The B2B tier discount (percent) for a line of ``quantity`` units."""
    discount = 0
    for minimum, percent in B2B_TIERS:
        if quantity >= minimum:
            discount = percent
    return discount


def b2b_price(product, quantity):
    """Net unit price for a business customer buying ``quantity`` units."""
    net = net_list_price(product)
    return round_money(net - percent_of(net, tier_discount(quantity)))


def price_deviation(product, charged, quantity, business):
    """How far a charged unit price is from the expected one, as a fraction (0.05 = 5 %)."""
    expected = b2b_price(product, quantity) if business else product.list_price
    if expected == 0:
        return Decimal(0)
    return abs(charged - expected) / expected


def suspicious_lines(order, products, business, tolerance=Decimal("0.25")):
    """Lines of ``order`` whose price deviates from the expected price by more than tolerance.

    Marketplace orders are skipped: marketplaces run their own promotions.
    """
    if order.channel == "marketplace":
        return []
    flagged = []
    for line in order.lines:
        product = products[line.sku]
        deviation = price_deviation(product, line.unit_price, line.quantity, business)
        if deviation > tolerance:
            flagged.append((line.line_no, line.sku, line.unit_price, deviation))
    return flagged


def price_list(products, business=False, quantity=1):
    """``[(sku, name, price), ...]`` for active products, sorted by SKU."""
    rows = []
    for product in sorted(products, key=lambda p: p.sku):
        if not product.active:
            continue
        price = b2b_price(product, quantity) if business else product.list_price
        rows.append((product.sku, product.name, price))
    return rows
