"""Amounts of orders and refunds in the base currency, split into net and VAT.

This is the one place where an order line becomes money for reporting:

1. the line's list amount and its discount (``discounts``) are converted to EUR at the rate of
   the order's month (``fx``), each rounded to cents; the amount charged is their difference;
2. a bundle's charged amount is split over its components (``catalog.bundles``);
3. each part is split into net and VAT by the tax engine for the destination country, the
   component's VAT category and the order date (``tax.engine``); reverse-charged and export orders
   carry no VAT.

A refund is treated like the line it reverses: same country, categories, date and exchange rate
as the original order.
"""
from dataclasses import dataclass
from decimal import Decimal

from ..catalog.bundles import expand_amount
from ..tax import engine, rules
from .discounts import line_discounts


@dataclass(frozen=True)
class LineTotals:
    """One order line (or refund) in EUR."""

    order_id: str
    line_no: int
    sku: str
    quantity: int
    list_amount: Decimal
    discount: Decimal
    charged: Decimal
    net: Decimal
    vat: Decimal


def _split(product, charged, order, reverse_charge, products):
    """(net, vat) of ``charged`` EUR for ``product`` in ``order``."""
    day = order.placed_at.date()
    net = Decimal("0.00")
    for component, part in expand_amount(product, charged, products):
        net += engine.net_amount(part, order.ship_country, component.vat_category, day, reverse_charge)
    return net, charged - net


def order_totals(order, dataset):
    """``[LineTotals, ...]`` for every line of ``order``."""
    customer = dataset.customers[order.customer_id]
    reverse_charge = rules.is_reverse_charge(order, customer)
    discounts = line_discounts(order, dataset.discount_codes)
    rates = dataset.rates
    totals = []
    for line, discount in zip(order.lines, discounts):
        list_eur = rates.to_base(line.list_amount, order.currency, order.month)
        discount_eur = rates.to_base(discount, order.currency, order.month)
        charged = list_eur - discount_eur
        product = dataset.products[line.sku]
        net, vat = _split(product, charged, order, reverse_charge, dataset.products)
        totals.append(
            LineTotals(order.order_id, line.line_no, line.sku, line.quantity, list_eur, discount_eur, charged, net, vat)
        )
    return totals


def refund_totals(refund, dataset, orders_by_id=None):
    """LineTotals for one refund (``list_amount`` and ``discount`` are zero)."""
    orders_by_id = orders_by_id or dataset.orders_by_id()
    order = orders_by_id[refund.order_id]
    line = order.line(refund.line_no)
    customer = dataset.customers[order.customer_id]
    reverse_charge = rules.is_reverse_charge(order, customer)
    amount = dataset.rates.to_base(refund.amount, order.currency, order.month)
    product = dataset.products[line.sku]
    net, vat = _split(product, amount, order, reverse_charge, dataset.products)
    zero = Decimal("0.00")
    return LineTotals(order.order_id, line.line_no, line.sku, refund.quantity, zero, zero, amount, net, vat)


def sum_totals(totals):
    """Field-wise sums of LineTotals: ``{"list_amount": ..., "discount": ..., ...}``."""
    sums = {name: Decimal("0.00") for name in ("list_amount", "discount", "charged", "net", "vat")}
    for item in totals:
        for name in sums:
            sums[name] += getattr(item, name)
    return sums
