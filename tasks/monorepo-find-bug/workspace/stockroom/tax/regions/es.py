"""VAT rules for Spain (ES).

Spain: 21 % standard, 10 % for food, 4 % ("superreducido") for books. The Canary Islands,
Ceuta and Melilla are outside the EU VAT area; the webshop does not offer them as destinations.
Spanish VAT ids (NIF) take several forms; we only check their shape.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "ES"
NAME = "Spain"
CURRENCY = "EUR"
VAT_NAME = "IVA"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2012, 9, 1), Decimal("0.21"))],
    "food": [(date(2012, 9, 1), Decimal("0.10"))],
    "books": [(date(1995, 1, 1), Decimal("0.04"))],
}

#: The shape of a VAT id of Spain, without spaces or dots.
VAT_ID = re.compile(r"ES[0-9A-Z]\d{7}[0-9A-Z]")

LEGENDS = {
    "reverse_charge": "Inversion del sujeto pasivo",
    "export": "Exenta por exportacion",
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
    """A NIF must contain a letter at the start or the end (companies and persons respectively)."""
    return digits[0].isalpha() or digits[-1].isalpha()

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Spain with a correct check digit."""
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


def is_excluded_territory(postcode):
    """Canary Islands (35, 38), Ceuta (51) and Melilla (52) postcodes."""
    return postcode.strip()[:2] in {"35", "38", "51", "52"}
