"""Amounts of money."""


def parse_amount(text):
    """Parses '12.34' into an amount."""
    return float(text)


def format_amount(amount):
    """Formats an amount with two decimals."""
    return f"{amount:.2f}"
