"""VAT rules for Finland (FI).

Finland: 24 % standard (25.5 % from 2024-09-01), 14 % for food, 10 % for books.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "FI"
NAME = "Finland"
CURRENCY = "EUR"
VAT_NAME = "ALV"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2013, 1, 1), Decimal("0.24")), (date(2024, 9, 1), Decimal("0.255"))],
    "food": [(date(2013, 1, 1), Decimal("0.14"))],
    "books": [(date(2013, 1, 1), Decimal("0.10"))],
}

#: The shape of a VAT id of Finland, without spaces or dots.
VAT_ID = re.compile(r"FI\d{8}")

LEGENDS = {
    "reverse_charge": "Kaannetty verovelvollisuus",
    "export": "Veroton vienti",
    "vat": "ALV {rate} %",
}


def rate(vat_category, on):
    """The rate for goods of ``vat_category`` sold on date ``on``."""
    history = RATE_HISTORY.get(vat_category, RATE_HISTORY["standard"])
    current = None
    for since, value in history:
        if on >= since:
            current = value
    if current is None:
        raise ValueError(f"{COUNTRY}: no {vat_category} rate on {on}")
    return current


def net_amount(gross, vat_category, on):
    """The net part of the VAT-inclusive amount ``gross``."""
    return net_from_gross(gross, rate(vat_category, on))


def vat_amount(gross, vat_category, on):
    return gross - net_amount(gross, vat_category, on)


def _check_digits_ok(digits):
    """Y-tunnus check: weights 7,9,10,5,8,4,2; remainder 0 -> 0, 1 invalid, else 11 - remainder."""
    weights = (7, 9, 10, 5, 8, 4, 2)
    remainder = sum(int(char) * weight for char, weight in zip(digits[:7], weights)) % 11
    if remainder == 1:
        return False
    check = 0 if remainder == 0 else 11 - remainder
    return check == int(digits[7])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Finland with a correct check digit."""
    compact = re.sub(r"[\s.\-]", "", vat_id).upper()
    if not VAT_ID.fullmatch(compact):
        return False
    return _check_digits_ok(compact[2:])


def invoice_legend(vat_category, on, reverse_charge=False, export=False):
    """The VAT line printed on invoices for this country."""
    if reverse_charge:
        return LEGENDS["reverse_charge"]
    if export:
        return LEGENDS["export"]
    percent = (rate(vat_category, on) * 100).normalize()
    return LEGENDS["vat"].format(rate=f"{percent:f}")


def rate_table(on):
    """``{vat_category: rate}`` on date ``on``."""
    return {category: rate(category, on) for category in ("standard", "food", "books", "children_clothing")}


def describe(on):
    """One line per rate for the tax report's appendix."""
    lines = [f"{NAME} ({COUNTRY}), {VAT_NAME}:"]
    for category, value in rate_table(on).items():
        lines.append(f"  {category:<18} {(value * 100).normalize():f} %")
    return lines
