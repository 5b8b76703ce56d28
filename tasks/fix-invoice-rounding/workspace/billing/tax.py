"""Sales tax."""

from billing.currency import round_money


def line_tax(amount, rate, currency: str):
    """Tax on one line amount."""
    return round_money(amount * rate, currency)


def tax_by_rate(amounts_and_rates, currency: str) -> dict:
    """Tax owed for each rate, from (line amount, rate) pairs."""
    taxes = {}
    for amount, rate in amounts_and_rates:
        taxes[rate] = taxes.get(rate, 0) + line_tax(amount, rate, currency)
    return taxes
