"""VAT rules for the Netherlands (NL).

Dutch btw has a standard rate ("hoog tarief", 21 %) and a reduced rate ("laag tarief") for food
and books, which went from 6 % to 9 % on 2019-01-01. Children's clothing is standard-rated.
Since 2020 sole traders have a separate VAT id (btw-id) that uses a MOD 97 check instead of the
old eleven-test; both forms are accepted.
"""
import re
from datetime import date
from decimal import Decimal

from ...money import net_from_gross, round_money

COUNTRY = "NL"
NAME = "the Netherlands"
CURRENCY = "EUR"
VAT_NAME = "btw"

#: Rates by VAT category: ``[(valid from, rate), ...]``, oldest first. A category that is not
#: listed is taxed at the standard rate.
RATE_HISTORY = {
    "standard": [(date(2012, 10, 1), Decimal("0.21"))],
    "food": [(date(2001, 1, 1), Decimal("0.06")), (date(2019, 1, 1), Decimal("0.09"))],
    "books": [(date(2001, 1, 1), Decimal("0.06")), (date(2019, 1, 1), Decimal("0.09"))],
}

#: The shape of a VAT id of the Netherlands, without spaces or dots.
VAT_ID = re.compile(r"NL\d{9}B\d{2}")

LEGENDS = {
    "reverse_charge": "btw verlegd",
    "export": "Vrijgesteld: uitvoer",
    "vat": "btw {rate} %",
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


REDUCED_CATEGORIES = ("food", "books")


def net_amount(gross, vat_category, on):
    """The net part of the VAT-inclusive amount ``gross``.

    The reduced rate is computed the way the Belastingdienst's calculator does it, per line, so
    that our OSS figures match the amounts on Dutch customers' receipts.
    """
    applicable = rate(vat_category, on)
    if vat_category in REDUCED_CATEGORIES:
        return _excl_laag_tarief(gross, applicable)
    return net_from_gross(gross, applicable)


def _excl_laag_tarief(gross, laag_tarief):
    """Amount excluding btw at the reduced rate, rounded to cents.

    The gross amount includes the btw, so the net amount is gross / (1 + rate), not
    gross * (1 - rate) (which takes the rate off the gross amount and overstates the btw).
    """
    return round_money(gross / (Decimal(1) + laag_tarief))


def vat_amount(gross, vat_category, on):
    return gross - net_amount(gross, vat_category, on)


def _check_digits_ok(digits):
    """The eleven-test on the nine digits, or (btw-id of sole traders) MOD 97 over NL+id."""
    number = digits[:9]
    total = sum(int(char) * weight for char, weight in zip(number[:8], range(9, 1, -1)))
    if total % 11 == int(number[8]) and total % 11 != 10:
        return True
    letters = "".join(str(ord(char) - 55) for char in "NL")
    converted = letters + "".join(str(ord(c) - 55) if c.isalpha() else c for c in digits)
    return int(converted) % 97 == 1

def validate_vat_id(vat_id):
    """Whether ``vat_id`` is a well-formed VAT id of the Netherlands with a correct check digit."""
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


def is_sole_trader_id(vat_id):
    """Whether a btw-id is one of the post-2020 ids for sole traders (no eleven-test)."""
    compact = re.sub(r"[\s.\-]", "", vat_id).upper()
    if not VAT_ID.fullmatch(compact):
        return False
    digits = compact[2:11]
    total = sum(int(char) * weight for char, weight in zip(digits[:8], range(9, 1, -1)))
    return total % 11 != int(digits[8])
