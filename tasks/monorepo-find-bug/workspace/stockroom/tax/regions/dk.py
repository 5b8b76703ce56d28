"""VAT rules for Denmark (DK).

Denmark has a single VAT rate of 25 % for everything we sell (no reduced rates at all).
Webshop orders to Denmark are paid in DKK and converted to EUR before tax is computed.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "DK"
NAME = "Denmark"
CURRENCY = "DKK"
VAT_NAME = "moms"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(1992, 1, 1), Decimal("0.25"))],
}

#: The shape of a VAT id of Denmark, without spaces or dots.
VAT_ID = re.compile(r"DK\d{8}")

LEGENDS = {
    "reverse_charge": "Omvendt betalingspligt",
    "export": "Momsfri eksport",
    "vat": "moms {rate} %",
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
    """CVR check: weighted sum with weights 2,7,6,5,4,3,2,1 is divisible by 11."""
    weights = (2, 7, 6, 5, 4, 3, 2, 1)
    return sum(int(char) * weight for char, weight in zip(digits, weights)) % 11 == 0

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Denmark with a correct check digit."""
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


def has_reduced_rates():
    return False
