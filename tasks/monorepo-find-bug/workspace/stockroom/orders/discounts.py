"""Discount codes.

Codes live in ``data/discount_codes.csv``::

    code,kind,value,min_order,valid_from,valid_to,channels
    SPRING10,percent,10,0,2024-03-01,2024-03-31,web;marketplace
    WELCOME5,fixed,5.00,25.00,2024-01-01,2024-12-31,web

- ``percent``: ``value`` % off every line, rounded per line.
- ``fixed``: ``value`` off the order (in the order's currency), never more than the order's list
  amount, spread over the lines in proportion to their list amounts (largest remainder), so that
  each line carries its share for VAT.
- ``free_shipping``: no effect on the lines; the shipping fee is waived.

A code applies when the order was placed between ``valid_from`` and ``valid_to`` (inclusive, UTC
dates), on one of the listed ``channels`` (empty: every channel), and the order's list amount is at
least ``min_order``. Codes are case-insensitive. A code that does not apply is ignored: the order
system already refused it at checkout, so this only happens for imported marketplace orders.
"""
from datetime import date
from decimal import Decimal

from ..money import ZERO, allocate, percent_of

KINDS = ("percent", "fixed", "free_shipping")


def find_code(codes, code):
    """The code's row, or None for an empty or unknown code."""
    if not code:
        return None
    return codes.get(code.strip().upper())


def channels_of(row):
    return [channel.strip() for channel in row["channels"].split(";") if channel.strip()]


def applies(row, order):
    """Whether the discount code ``row`` applies to ``order``."""
    if row is None:
        return False
    day = order.placed_at.date()
    if day < date.fromisoformat(row["valid_from"]) or day > date.fromisoformat(row["valid_to"]):
        return False
    channels = channels_of(row)
    if channels and order.channel not in channels:
        return False
    return order.list_amount >= row["min_order"]


def line_discounts(order, codes):
    """The discount on each line of ``order`` (order currency), in line order."""
    row = find_code(codes, order.discount_code)
    if not applies(row, order):
        return [ZERO for _ in order.lines]
    kind = row["kind"]
    if kind == "percent":
        return [percent_of(line.list_amount, row["value"]) for line in order.lines]
    if kind == "fixed":
        total = min(row["value"], order.list_amount)
        weights = [line.list_amount for line in order.lines]
        if sum(weights) == 0:
            return [ZERO for _ in order.lines]
        return allocate(total, weights)
    if kind == "free_shipping":
        return [ZERO for _ in order.lines]
    raise ValueError(f"discount code {row['code']}: unknown kind {kind!r}")


def shipping_waived(order, codes):
    """Whether the order's code waives the shipping fee."""
    row = find_code(codes, order.discount_code)
    return applies(row, order) and row["kind"] == "free_shipping"


def order_discount(order, codes):
    """The total discount of ``order`` (order currency)."""
    total = Decimal("0.00")
    for amount in line_discounts(order, codes):
        total += amount
    return total


def usage_by_code(orders, codes):
    """``{code: (orders, total discount)}`` over ``orders`` (amounts in each order's currency)."""
    usage = {}
    for order in orders:
        row = find_code(codes, order.discount_code)
        if not applies(row, order):
            continue
        count, total = usage.get(row["code"], (0, Decimal("0.00")))
        usage[row["code"]] = (count + 1, total + order_discount(order, codes))
    return dict(sorted(usage.items()))


def check_codes(codes):
    """Problems in the discount table: unknown kinds, inverted date ranges, silly values."""
    problems = []
    for code, row in sorted(codes.items()):
        if row["kind"] not in KINDS:
            problems.append(f"{code}: unknown kind {row['kind']!r}")
        if row["valid_from"] > row["valid_to"]:
            problems.append(f"{code}: valid_from is after valid_to")
        if row["kind"] == "percent" and not 0 < row["value"] <= 100:
            problems.append(f"{code}: percent value {row['value']} out of range")
        if row["kind"] == "fixed" and row["value"] <= 0:
            problems.append(f"{code}: fixed value must be positive")
    return problems
