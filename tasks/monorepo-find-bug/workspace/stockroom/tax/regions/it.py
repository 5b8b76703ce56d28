"""VAT rules for Italy (IT).

Italy: 22 % standard, 10 % for food, 4 % for books. Invoices without VAT above EUR 77.47 carry
a EUR 2 stamp duty (marca da bollo) that we pay ourselves; it is not part of the sale. The partita
IVA has eleven digits with a Luhn check digit.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "IT"
NAME = "Italy"
CURRENCY = "EUR"
VAT_NAME = "IVA"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2013, 10, 1), Decimal("0.22"))],
    "food": [(date(1995, 2, 24), Decimal("0.10"))],
    "books": [(date(1989, 1, 1), Decimal("0.04"))],
}

#: The shape of a VAT id of Italy, without spaces or dots.
VAT_ID = re.compile(r"IT\d{11}")

LEGENDS = {
    "reverse_charge": "Inversione contabile",
    "export": "Non imponibile art. 8 DPR 633/72",
    "vat": "IVA {rate} %",
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
    """Luhn over the eleven digits."""
    total = 0
    for index, char in enumerate(digits):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Italy with a correct check digit."""
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


STAMP_DUTY_THRESHOLD = Decimal("77.47")
STAMP_DUTY = Decimal("2.00")


def stamp_duty(invoice_total, vat_charged):
    """The marca da bollo due on an invoice (we bear it; it is never charged to the customer)."""
    if vat_charged or invoice_total <= STAMP_DUTY_THRESHOLD:
        return Decimal("0.00")
    return STAMP_DUTY
