"""The tax engine: splits amounts into net and VAT using the region modules.

Every function takes the destination country, the VAT category of the goods and the date of the
sale (rates change over time: see each region's ``RATE_HISTORY``). Amounts are EUR Decimals, and
net + VAT always equals the amount passed in.
"""
from decimal import Decimal

from ..errors import UnknownCountry
from . import rules
from .regions import REGIONS


def region_for(country):
    """The region module for an EU country code."""
    try:
        return REGIONS[country]
    except KeyError:
        raise UnknownCountry(country) from None


def rate(country, vat_category, day):
    """The VAT rate (a fraction) for goods of ``vat_category`` sold to ``country`` on ``day``."""
    if rules.is_export(country):
        return Decimal("0")
    return region_for(country).rate(vat_category, day)


def net_amount(amount, country, vat_category, day, reverse_charge=False):
    """The net part of ``amount`` charged for goods of ``vat_category`` shipped to ``country``.

    For exports and reverse-charged supplies no VAT was charged, so the whole amount is net.
    """
    if reverse_charge or rules.is_export(country):
        return amount
    return region_for(country).net_amount(amount, vat_category, day)


def vat_amount(amount, country, vat_category, day, reverse_charge=False):
    """The VAT part of ``amount``: ``amount - net_amount(...)``."""
    return amount - net_amount(amount, country, vat_category, day, reverse_charge)


def split(amount, country, vat_category, day, reverse_charge=False):
    """``(net, vat)`` of ``amount``."""
    net = net_amount(amount, country, vat_category, day, reverse_charge)
    return net, amount - net


def rate_table(day):
    """``{country: {vat_category: rate}}`` for every region on ``day`` (for the tax report)."""
    return {country: module.rate_table(day) for country, module in sorted(REGIONS.items())}


def countries():
    return sorted(REGIONS)
