"""The one place where an order total is computed."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def _dec(value) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def calc(lines, discount_pct=0, tax_rate=0) -> Decimal:
    """Total of ``(unit_price, quantity)`` lines, less ``discount_pct`` percent, plus tax.

    ``tax_rate`` is a fraction (0.2 = 20 %). The result is rounded half-up to cents.
    """
    discount = _dec(discount_pct)
    if not 0 <= discount <= 100:
        raise ValueError("discount_pct must be between 0 and 100")
    if _dec(tax_rate) < 0:
        raise ValueError("tax_rate must not be negative")
    gross = sum((_dec(price) * _dec(qty) for price, qty in lines), Decimal(0))
    net = gross * (1 - discount / 100)
    return (net * (1 + _dec(tax_rate))).quantize(CENT, rounding=ROUND_HALF_UP)
