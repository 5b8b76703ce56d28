"""VAT rules for Belgium (BE).

Belgium has 21 % standard and 6 % for food and books (12 % applies to restaurant services only,
which we do not sell). Belgian VAT ids are the ten-digit enterprise number; old nine-digit ids are
written with a leading 0.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "BE"
NAME = "Belgium"
CURRENCY = "EUR"
VAT_NAME = "TVA/BTW"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(1996, 1, 1), Decimal("0.21"))],
    "food": [(date(1992, 4, 1), Decimal("0.06"))],
    "books": [(date(1992, 4, 1), Decimal("0.06"))],
}

#: The shape of a VAT id of Belgium, without spaces or dots.
VAT_ID = re.compile(r"BE[01]\d{9}")

LEGENDS = {
    "reverse_charge": "Autoliquidation / Verlegging van heffing",
    "export": "Exportation exoneree",
    "vat": "TVA/BTW {rate} %",
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
    """MOD 97: the last two digits are 97 minus the first eight modulo 97."""
    return 97 - int(digits[:8]) % 97 == int(digits[8:10])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Belgium with a correct check digit."""
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


def normalise_enterprise_number(number):
    """``"0123.456.749"`` -> ``"BE0123456749"``."""
    digits = re.sub(r"\D", "", number)
    if len(digits) == 9:
        digits = "0" + digits
    return "BE" + digits
