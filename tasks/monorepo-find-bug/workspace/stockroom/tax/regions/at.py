"""VAT rules for Austria (AT).

Austria: 20 % standard, 10 % for food and books. The 2020-2021 COVID rate of 5 % applied to
hospitality and publications; for books it ran from 2020-07-01 to 2021-12-31, which matters for
refunds of old orders only.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "AT"
NAME = "Austria"
CURRENCY = "EUR"
VAT_NAME = "USt"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(1984, 1, 1), Decimal("0.20"))],
    "food": [(date(1984, 1, 1), Decimal("0.10"))],
    "books": [(date(1984, 1, 1), Decimal("0.10")), (date(2020, 7, 1), Decimal("0.05")), (date(2022, 1, 1), Decimal("0.10"))],
}

#: The shape of a VAT id of Austria, without spaces or dots.
VAT_ID = re.compile(r"ATU\d{8}")

LEGENDS = {
    "reverse_charge": "Uebergang der Steuerschuld",
    "export": "Steuerfreie Ausfuhrlieferung",
    "vat": "USt {rate} %",
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
    """The Austrian check: weighted digit sums of the seven digits after U."""
    number = digits[1:]
    total = 0
    for index, char in enumerate(number[:7]):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            value = value // 10 + value % 10
        total += value
    return (10 - (total + 4) % 10) % 10 == int(number[7])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Austria with a correct check digit."""
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


def uid_number(vat_id):
    """The eight digits of an Austrian UID, without the ATU prefix."""
    return re.sub(r"[\s.\-]", "", vat_id).upper()[3:]
