"""VAT rules for Germany (DE).

Our home country. German VAT applies to every domestic sale, B2C and B2B alike. The temporary
rate cut of the second half of 2020 (19 % -> 16 %, 7 % -> 5 %) is part of the rate history because
refunds of orders from that period must be computed at the rates of the original sale.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross

COUNTRY = "DE"
NAME = "Germany"
CURRENCY = "EUR"
VAT_NAME = "Umsatzsteuer (MwSt)"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(1993, 1, 1), Decimal("0.15")), (date(2007, 1, 1), Decimal("0.19")), (date(2020, 7, 1), Decimal("0.16")), (date(2021, 1, 1), Decimal("0.19"))],
    "food": [(date(1983, 7, 1), Decimal("0.07")), (date(2020, 7, 1), Decimal("0.05")), (date(2021, 1, 1), Decimal("0.07"))],
    "books": [(date(1983, 7, 1), Decimal("0.07")), (date(2020, 7, 1), Decimal("0.05")), (date(2021, 1, 1), Decimal("0.07"))],
}

#: The shape of a VAT id of Germany, without spaces or dots.
VAT_ID = re.compile(r"DE\d{9}")

LEGENDS = {
    "reverse_charge": "Steuerschuldnerschaft des Leistungsempfaengers",
    "export": "Steuerfreie Ausfuhrlieferung",
    "vat": "enthaltene MwSt {rate} %",
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
    """ISO 7064 MOD 11,10 over the first eight digits; the ninth is the check digit."""
    product = 10
    for char in digits[:8]:
        total = (int(char) + product) % 10
        if total == 0:
            total = 10
        product = (2 * total) % 11
    check = 11 - product
    if check == 10:
        check = 0
    return check == int(digits[8])

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of Germany with a correct check digit."""
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


def temporary_cut_applies(on):
    """Whether ``on`` falls in the 2020 temporary rate cut (for the refunds desk)."""
    return date(2020, 7, 1) <= on <= date(2020, 12, 31)


def kleinunternehmer_note():
    """Printed on invoices of our small-business subsidiary (not used for webshop sales)."""
    return "Gemaess Paragraph 19 UStG wird keine Umsatzsteuer berechnet."
