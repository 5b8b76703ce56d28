"""Invoice totals."""

from dataclasses import dataclass
from decimal import Decimal

from billing.currency import round_money, to_decimal
from billing.tax import tax_by_rate


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    tax: Decimal
    total: Decimal
    tax_by_rate: dict


def line_amount(line, currency: str) -> Decimal:
    """Price of one line (unit price times quantity), rounded to the currency."""
    return round_money(to_decimal(line.unit_price) * to_decimal(line.quantity), currency)


def compute_totals(invoice) -> Totals:
    cur = invoice.currency
    amounts = [line_amount(line, cur) for line in invoice.lines]
    subtotal = round_money(sum(amounts, Decimal(0)), cur)
    taxes = tax_by_rate(
        [(amount, line.tax_rate) for amount, line in zip(amounts, invoice.lines)],
        cur,
    )
    tax = round_money(sum(taxes.values(), Decimal(0)), cur)
    return Totals(
        subtotal=subtotal,
        tax=tax,
        total=round_money(subtotal + tax, cur),
        tax_by_rate=taxes,
    )
