"""Money arithmetic.

All amounts are ``decimal.Decimal``; floats never touch money. Amounts are rounded to cents with
ROUND_HALF_UP (the rounding finance and our invoicing system use) at the points documented in each
function, never in between.
"""
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def to_money(value):
    """Parses a str, int or Decimal into a Decimal amount (not rounded).

    Accepts a decimal point or a decimal comma ("12.50", "12,50") but no thousands separators.
    Raises ValueError for anything else.
    """
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        raise TypeError("floats are not accepted as money; pass a str or Decimal")
    text = str(value).strip().replace(",", ".")
    if text.count(".") > 1:
        raise ValueError(f"not an amount: {value!r}")
    try:
        return Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None


def round_money(amount):
    """Rounds to cents, half up."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def net_from_gross(gross, rate):
    """The net part of a VAT-inclusive amount, rounded to cents.

    ``rate`` is a fraction (Decimal("0.19") for 19 %). The VAT is then ``gross - net``, so that net
    and VAT always add up to the gross amount exactly.
    """
    if rate < 0:
        raise ValueError(f"negative VAT rate {rate}")
    return round_money(gross / (Decimal(1) + rate))


def vat_from_gross(gross, rate):
    """The VAT part of a VAT-inclusive amount: ``gross - net_from_gross(gross, rate)``."""
    return gross - net_from_gross(gross, rate)


def gross_from_net(net, rate):
    """The VAT-inclusive amount for a net amount, rounded to cents."""
    return round_money(net * (Decimal(1) + rate))


def percent_of(amount, percent):
    """``percent`` % of ``amount``, rounded to cents (percent as a number: 15 for 15 %)."""
    return round_money(amount * Decimal(percent) / Decimal(100))


def allocate(total, weights):
    """Splits ``total`` (cents) across ``weights`` in proportion, returning amounts in cents.

    Uses the largest-remainder method so that the parts always add up to ``total`` exactly.
    ``weights`` are Decimals (or ints) and must not all be zero.
    """
    weights = [Decimal(w) for w in weights]
    weight_sum = sum(weights)
    if not weights:
        return []
    if weight_sum == 0:
        raise ValueError("cannot allocate over weights that are all zero")
    cents = int((total / CENT).to_integral_value(rounding=ROUND_HALF_UP))
    exact = [Decimal(cents) * w / weight_sum for w in weights]
    floors = [int(e) for e in exact]
    remainder = cents - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (exact[i] - floors[i], -i), reverse=True)
    for i in order[:remainder]:
        floors[i] += 1
    return [Decimal(f) * CENT for f in floors]


def sum_money(amounts):
    """The sum of amounts, as a Decimal with two places (0.00 for no amounts)."""
    total = ZERO
    for amount in amounts:
        total += amount
    return round_money(total)


def format_money(amount, currency=None, width=None):
    """``1234.5`` -> ``"1,234.50"`` (with `` EUR`` if currency is given), right-aligned to width."""
    rounded = round_money(amount)
    sign = "-" if rounded < 0 else ""
    whole, _, fraction = f"{abs(rounded):.2f}".partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    text = f"{sign}{','.join(groups)}.{fraction}"
    if currency:
        text = f"{text} {currency}"
    return text.rjust(width) if width else text
