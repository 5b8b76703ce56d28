"""Currency metadata, rounding and formatting."""

from decimal import ROUND_HALF_UP, Decimal

MINOR_UNITS = {"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "JPY": 0, "KWD": 3}
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CHF": "CHF ", "JPY": "¥", "KWD": "KD "}


def minor_units(currency: str) -> int:
    """Number of decimal places used by ``currency``."""
    try:
        return MINOR_UNITS[currency]
    except KeyError:
        raise ValueError(f"unknown currency {currency!r}") from None


def to_decimal(value) -> Decimal:
    """Exact Decimal for a str, int, float or Decimal (floats go through their repr)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def round_money(amount, currency: str) -> Decimal:
    """Round ``amount`` half-up to the smallest unit of ``currency``."""
    exponent = Decimal(1).scaleb(-minor_units(currency))
    return to_decimal(amount).quantize(exponent, rounding=ROUND_HALF_UP)


def format_money(amount, currency: str) -> str:
    """'$1,234.50', '¥1,235', '-€3.10'."""
    digits = minor_units(currency)
    amount = round_money(amount, currency)
    sign = "-" if amount < 0 else ""
    return f"{sign}{SYMBOLS[currency]}{abs(amount):,.{digits}f}"
