"""Amounts of money, in integer cents."""


def parse_amount(text):
    """Parses '12.34' (or '-0.05', or '7') into cents."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, fraction = text.lstrip("+-").partition(".")
    if len(fraction) > 2:
        raise ValueError(f"more than two decimals: {text}")
    return sign * (int(whole or "0") * 100 + int((fraction + "00")[:2]))


def format_amount(cents):
    """Formats cents with two decimals."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"
