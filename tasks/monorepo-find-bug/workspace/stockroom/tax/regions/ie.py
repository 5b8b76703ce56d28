"""VAT rules for Ireland (IE).

Ireland: 23 % standard. Most food, printed books and children's clothing and footwear are
zero-rated (0 %), which is why Irish orders often carry much less VAT than others. The 13.5 %
reduced rate covers fuel and services we do not sell.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "IE"
NAME = "Ireland"
CURRENCY = "EUR"
VAT_NAME = "VAT"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2012, 1, 1), Decimal("0.23")), (date(2020, 9, 1), Decimal("0.21")), (date(2021, 3, 1), Decimal("0.23"))],
    "food": [(date(1972, 11, 1), Decimal("0.00"))],
    "books": [(date(1972, 11, 1), Decimal("0.00"))],
    "children_clothing": [(date(1972, 11, 1), Decimal("0.00"))],
}

#: The shape of a VAT id of Ireland, without spaces or dots.
VAT_ID = re.compile(r"IE\d{7}[A-W][A-I]?|IE\d[A-Z+*]\d{5}[A-W]")

LEGENDS = {
    "reverse_charge": "VAT reverse charge",
    "export": "Zero-rated export",
    "vat": "VAT {rate} %",
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
    """The modern format (seven digits, check letter, optional second letter) is checked; the
    old format with a letter in second place is accepted as is."""
    if not digits[1].isdigit():
        return True
    total = sum(int(char) * weight for char, weight in zip(digits[:7], range(8, 1, -1)))
    if len(digits) == 9:
        total += 9 * (ord(digits[8]) - 64)
    return "WABCDEFGHIJKLMNOPQRSTUV"[total % 23] == digits[7]

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Ireland with a correct check digit."""
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


def is_zero_rated(vat_category, on):
    return rate(vat_category, on) == 0
