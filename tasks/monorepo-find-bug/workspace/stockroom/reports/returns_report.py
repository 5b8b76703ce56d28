"""The monthly returns report: refunds by reason and by product, and return rates.

The return rate of a SKU is units refunded in the month divided by units sold in the month; it is
a rough signal (the refunds may belong to earlier sales), good enough to spot a bad batch.
"""
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from ..models.refund import REASONS
from ..orders.totals import refund_totals
from . import formatting as fmt
from .sales import orders_in_month, refunds_in_month

ZERO = Decimal("0.00")


@dataclass
class ReturnsReport:
    month: str
    count: int = 0
    amount: Decimal = ZERO
    by_reason: dict = field(default_factory=dict)
    by_sku: dict = field(default_factory=dict)
    restocked_units: int = 0


def build(dataset, year, month):
    report = ReturnsReport(month=f"{year:04d}-{month:02d}")
    reasons = defaultdict(lambda: [0, ZERO])
    skus = defaultdict(lambda: [0, 0, ZERO])  # refunded units, sold units, amount
    orders_by_id = dataset.orders_by_id()
    for refund in refunds_in_month(dataset, year, month):
        totals = refund_totals(refund, dataset, orders_by_id)
        report.count += 1
        report.amount += totals.charged
        reasons[refund.reason][0] += 1
        reasons[refund.reason][1] += totals.charged
        skus[totals.sku][0] += refund.quantity
        skus[totals.sku][2] += totals.charged
        if refund.restock:
            report.restocked_units += refund.quantity
    for order in orders_in_month(dataset, year, month):
        for line in order.lines:
            if line.sku in skus:
                skus[line.sku][1] += line.quantity
    report.by_reason = {key: tuple(reasons[key]) for key in REASONS if key in reasons}
    report.by_sku = {sku: tuple(values) for sku, values in sorted(skus.items())}
    return report


def render(report):
    head = fmt.title(f"Returns {report.month} (EUR)")
    figures = [
        fmt.value_line("Refunds", report.count),
        fmt.value_line("Refunded", report.amount),
        fmt.value_line("Units restocked", report.restocked_units),
    ]
    reason_rows = [(REASONS[key], count, amount) for key, (count, amount) in report.by_reason.items()]
    reasons = ["By reason"] + fmt.table(["reason", "refunds", "amount"], reason_rows, money_columns=(2,))
    sku_rows = [
        (sku, refunded, sold, fmt.percent(refunded, sold), amount)
        for sku, (refunded, sold, amount) in report.by_sku.items()
    ]
    by_sku = ["By product"] + fmt.table(["sku", "returned", "sold", "rate", "amount"], sku_rows, money_columns=(4,))
    return fmt.join(head + figures, reasons, by_sku)
