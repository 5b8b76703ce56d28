"""Sales channels: importing their order exports, and their fees.

Each module exposes ``CODE``, ``NAME``, ``normalize(raw_row)`` (the channel's export row turned
into our ``orders.csv`` columns), ``fees(order, line_totals)`` (what the channel keeps, in EUR)
and ``payout_delay_days``.
"""
from . import marketplace, pos, web, wholesale

CHANNEL_MODULES = {module.CODE: module for module in (web, marketplace, wholesale, pos)}


def channel_fees(order, line_totals):
    """The fee the order's channel keeps, in EUR."""
    return CHANNEL_MODULES[order.channel].fees(order, line_totals)
