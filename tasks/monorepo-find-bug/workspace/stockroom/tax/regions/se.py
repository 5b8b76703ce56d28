"""VAT rules for Sweden (SE).

Sweden: 25 % standard, 12 % for food, 6 % for books. Webshop orders to Sweden are paid in SEK
and converted to EUR before tax is computed. Swedish VAT ids are the twelve-digit
organisationsnummer-based form ending in 01.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "SE"
NAME = "Sweden"
CURRENCY = "SEK"
VAT_NAME = "moms"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(1990, 7, 1), Decimal("0.25"))],
    "food": [(date(2012, 1, 1), Decimal("0.12"))],
    "books": [(date(2002, 1, 1), Decimal("0.06"))],
}

#: The shape of a VAT id of Sweden, without spaces or dots.
VAT_ID = re.compile(r"SE\d{10}01")

LEGENDS = {
    "reverse_charge": "Omvand betalningsskyldighet",
    "export": "Export, undantagen fran skatteplikt",
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
    """Luhn over the ten digits of the organisation number."""
    total = 0
    for index, char in enumerate(digits[:10]):
        value = int(char)
        if index % 2 == 0:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Sweden with a correct check digit."""
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


def cash_rounding(amount_sek):
    """Cash payments in Sweden are rounded to whole kronor (trade-fair POS sales only)."""
    return amount_sek.quantize(Decimal("1"))
