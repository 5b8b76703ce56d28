"""billing: invoices, tax and totals for the customer portal."""

from billing.currency import format_money, minor_units, round_money
from billing.models import Invoice, LineItem
from billing.render import render_invoice
from billing.totals import Totals, compute_totals, line_amount

__all__ = [
    "Invoice",
    "LineItem",
    "Totals",
    "compute_totals",
    "format_money",
    "line_amount",
    "minor_units",
    "render_invoice",
    "round_money",
]
