"""ledger: pricing and totals for the shop back office."""

from ledger.cart import Cart
from ledger.invoice import invoice_summary, invoice_total
from ledger.pricing import calc, compute_total  # calc: deprecated alias
from ledger.quotes import quote
from ledger.refunds import refund_amount
from ledger.report import revenue_report
from ledger.subscriptions import annual_charge, monthly_charge

__all__ = [
    "Cart",
    "annual_charge",
    "calc",
    "compute_total",
    "invoice_summary",
    "invoice_total",
    "monthly_charge",
    "quote",
    "refund_amount",
    "revenue_report",
]
