"""VAT rules for Luxembourg (LU).

Luxembourg: 17 % standard, and the 3 % super-reduced rate for food, books and children's
clothing. In 2023 the standard rate was cut to 16 % for the year (the 3 % rate was unchanged).
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "LU"
NAME = "Luxembourg"
CURRENCY = "EUR"
VAT_NAME = "TVA"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2015, 1, 1), Decimal("0.17")), (date(2023, 1, 1), Decimal("0.16")), (date(2024, 1, 1), Decimal("0.17"))],
    "food": [(date(1983, 7, 1), Decimal("0.03"))],
    "books": [(date(1983, 7, 1), Decimal("0.03"))],
    "children_clothing": [(date(1983, 7, 1), Decimal("0.03"))],
}

#: The shape of a VAT id of Luxembourg, without spaces or dots.
VAT_ID = re.compile(r"LU\d{8}")

LEGENDS = {
    "reverse_charge": "Autoliquidation",
    "export": "Exoneration a l'exportation",
    "vat": "TVA {rate} %",
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
    """The last two digits are the first six modulo 89."""
    return int(digits[:6]) % 89 == int(digits[6:8])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Luxembourg with a correct check digit."""
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
