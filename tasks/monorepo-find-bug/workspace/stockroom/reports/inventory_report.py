"""The monthly inventory report: stock value at month end, movements, reorder suggestions."""
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

from ..dates import month_bounds
from ..inventory import levels, reorder, valuation
from . import formatting as fmt


@dataclass
class InventoryReport:
    month: str
    value: Decimal = Decimal("0.00")
    value_by_sku: dict = field(default_factory=dict)
    flow: dict = field(default_factory=dict)
    negative: list = field(default_factory=list)
    suggestions: list = field(default_factory=list)


def build(dataset, year, month):
    start, end = month_bounds(year, month)
    last_instant = end - timedelta(microseconds=1)
    report = InventoryReport(month=f"{year:04d}-{month:02d}")
    report.value_by_sku, report.value = valuation.stock_value(dataset.movements, last_instant)
    report.flow = levels.flow(dataset.movements, start, end)
    report.negative = levels.negative_levels(levels.on_hand(dataset.movements, last_instant))
    report.suggestions = reorder.suggestions(dataset.products, dataset.movements, last_instant)
    return report


def render(report):
    head = fmt.title(f"Inventory {report.month}")
    figures = [fmt.value_line("Stock value (FIFO)", report.value)]
    kinds = ("receipt", "sale", "return", "adjustment")
    flow_rows = [(sku, *(moves.get(kind, 0) for kind in kinds)) for sku, moves in report.flow.items()]
    flow = ["Movements"] + fmt.table(["sku", *kinds], flow_rows)
    problems = []
    if report.negative:
        problems = ["Negative stock (check the data)"] + [
            f"  {sku} in {warehouse}: {units}" for (sku, warehouse), units in report.negative
        ]
    suggestion_rows = [(sku, have, per_day, cover, quantity) for sku, have, per_day, cover, quantity in report.suggestions]
    suggestions = ["Reorder"] + fmt.table(["sku", "on hand", "per day", "cover", "order"], suggestion_rows)
    return fmt.join(head + figures, flow, problems, suggestions)
