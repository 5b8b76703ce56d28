"""VAT rules for France (FR).

France: 20 % standard, 5.5 % for food and books. Overseas departments (DROM) have their own
rates but are outside the EU VAT area; we do not ship there. The French VAT id is FR, a two-
character key and the nine-digit SIREN; the key is checked against the SIREN.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "FR"
NAME = "France"
CURRENCY = "EUR"
VAT_NAME = "TVA"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2014, 1, 1), Decimal("0.20"))],
    "food": [(date(2012, 1, 1), Decimal("0.055"))],
    "books": [(date(2012, 1, 1), Decimal("0.07")), (date(2013, 1, 1), Decimal("0.055"))],
}

#: The shape of a VAT id of France, without spaces or dots.
VAT_ID = re.compile(r"FR[0-9A-HJ-NP-Z]{2}\d{9}")

LEGENDS = {
    "reverse_charge": "Autoliquidation",
    "export": "Exoneration de TVA, article 262 I du CGI",
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
    """For numeric keys: key == (12 + 3 * (SIREN mod 97)) mod 97. Letter keys are not checked."""
    key, siren = digits[:2], digits[2:]
    if not key.isdigit():
        return True
    return int(key) == (12 + 3 * (int(siren) % 97)) % 97

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of France with a correct check digit."""
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


def siren_of(vat_id):
    """The SIREN (company registration number) inside a French VAT id."""
    compact = re.sub(r"[\s.\-]", "", vat_id).upper()
    return compact[4:13]


def is_drom_postcode(postcode):
    """Postcodes 971-976 are the overseas departments, outside the EU VAT area."""
    return postcode.strip()[:3] in {"971", "972", "973", "974", "976"}
