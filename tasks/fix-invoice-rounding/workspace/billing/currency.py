"""Currency metadata, rounding and formatting."""

MINOR_UNITS = {"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "JPY": 0, "KWD": 3}
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CHF": "CHF ", "JPY": "¥", "KWD": "KD "}


def minor_units(currency: str) -> int:
    """Number of decimal places used by ``currency``."""
    try:
        return MINOR_UNITS[currency]
    except KeyError:
        raise ValueError(f"unknown currency {currency!r}") from None


def round_money(amount, currency: str):
    """Round ``amount`` to the smallest unit of ``currency``."""
    return round(amount, minor_units(currency))


def format_money(amount, currency: str) -> str:
    """'$1,234.50', '¥1,235', '-€3.10'."""
    digits = minor_units(currency)
    sign = "-" if amount < 0 else ""
    return f"{sign}{SYMBOLS[currency]}{abs(amount):,.{digits}f}"
