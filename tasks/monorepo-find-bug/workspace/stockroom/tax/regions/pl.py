"""VAT rules for Poland (PL).

Poland: 23 % standard, 5 % for food and books. Webshop orders to Poland are paid in PLN and
converted to EUR before tax is computed (see ``fx``). B2B invoices above PLN 15,000 for certain
goods need the split-payment notice; none of our products are on that list.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "PL"
NAME = "Poland"
CURRENCY = "PLN"
VAT_NAME = "PTU/VAT"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2011, 1, 1), Decimal("0.23"))],
    "food": [(date(2011, 1, 1), Decimal("0.05"))],
    "books": [(date(2011, 1, 1), Decimal("0.05"))],
}

#: The shape of a VAT id of Poland, without spaces or dots.
VAT_ID = re.compile(r"PL\d{10}")

LEGENDS = {
    "reverse_charge": "Odwrotne obciazenie",
    "export": "Eksport towarow 0 %",
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
    """NIP check: weighted sum of the first nine digits modulo 11 equals the tenth."""
    weights = (6, 5, 7, 2, 3, 4, 5, 6, 7)
    total = sum(int(char) * weight for char, weight in zip(digits[:9], weights))
    return total % 11 == int(digits[9])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Poland with a correct check digit."""
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


SPLIT_PAYMENT_THRESHOLD_PLN = Decimal("15000.00")


def needs_split_payment_notice(total_pln, annex_15_goods):
    return annex_15_goods and total_pln > SPLIT_PAYMENT_THRESHOLD_PLN
