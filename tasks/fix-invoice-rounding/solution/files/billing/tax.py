"""Sales tax."""

from decimal import Decimal

from billing.currency import round_money, to_decimal


def line_tax(amount, rate, currency: str) -> Decimal:
    """Tax on one amount at one rate, rounded once."""
    return round_money(to_decimal(amount) * to_decimal(rate), currency)


def tax_by_rate(amounts_and_rates, currency: str) -> dict:
    """Tax owed for each rate, from (line amount, rate) pairs.

    The amounts sharing a rate are added up first; the rate is applied once to
    that sum and rounded once (never per line).
    """
    bases = {}
    for amount, rate in amounts_and_rates:
        rate = to_decimal(rate)
        bases[rate] = bases.get(rate, Decimal(0)) + to_decimal(amount)
    return {rate: line_tax(base, rate, currency) for rate, base in bases.items()}
