"""Invoice totals."""

from dataclasses import dataclass

from billing.currency import round_money
from billing.tax import tax_by_rate


@dataclass(frozen=True)
class Totals:
    subtotal: object
    tax: object
    total: object
    tax_by_rate: dict


def line_amount(line, currency: str):
    """Price of one line (unit price times quantity), rounded to the currency."""
    return round_money(line.unit_price * line.quantity, currency)


def compute_totals(invoice) -> Totals:
    amounts = [line_amount(line, invoice.currency) for line in invoice.lines]
    subtotal = round_money(sum(amounts), invoice.currency)
    taxes = tax_by_rate(
        [(amount, line.tax_rate) for amount, line in zip(amounts, invoice.lines)],
        invoice.currency,
    )
    tax = round_money(sum(taxes.values()), invoice.currency)
    return Totals(
        subtotal=subtotal,
        tax=tax,
        total=round_money(subtotal + tax, invoice.currency),
        tax_by_rate=taxes,
    )
