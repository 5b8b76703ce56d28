"""VAT rules for Portugal (PT).

Mainland Portugal: 23 % standard, 6 % for food and books. Madeira and the Azores have lower
rates; we ship there rarely and the order system sends those orders to manual review, so they are
not handled here.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "PT"
NAME = "Portugal"
CURRENCY = "EUR"
VAT_NAME = "IVA"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2011, 1, 1), Decimal("0.23"))],
    "food": [(date(2011, 1, 1), Decimal("0.06"))],
    "books": [(date(2011, 1, 1), Decimal("0.06"))],
}

#: The shape of a VAT id of Portugal, without spaces or dots.
VAT_ID = re.compile(r"PT\d{9}")

LEGENDS = {
    "reverse_charge": "IVA - autoliquidacao",
    "export": "Isento artigo 14.o do CIVA",
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
    """MOD 11 with weights 9..2; a result of 10 or 11 means check digit 0."""
    total = sum(int(char) * weight for char, weight in zip(digits[:8], range(9, 1, -1)))
    check = 11 - total % 11
    if check >= 10:
        check = 0
    return check == int(digits[8])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Portugal with a correct check digit."""
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


def is_autonomous_region(postcode):
    """Madeira (9000-9399) and the Azores (9500-9999)."""
    prefix = postcode.strip()[:4]
    return prefix.isdigit() and int(prefix) >= 9000
