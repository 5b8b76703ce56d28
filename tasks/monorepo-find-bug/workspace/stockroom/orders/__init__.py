"""Order rules: validation, discounts, totals, status changes, fulfilment, cancellation."""
from .totals import LineTotals, order_totals, refund_totals

__all__ = ["LineTotals", "order_totals", "refund_totals"]
