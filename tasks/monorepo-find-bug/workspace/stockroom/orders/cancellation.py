"""Cancelling orders.

A customer may cancel an order until it ships. Paid orders are refunded in full; orders on
fraud hold are cancelled without a refund being due (nothing was captured). Wholesale orders that
were already picked carry a restocking fee.
"""
from decimal import Decimal

from ..money import percent_of
from .status import can_transition

RESTOCKING_FEE_PERCENT = 10
FEE_CHANNELS = frozenset({"wholesale"})


def can_cancel(order):
    return can_transition(order.status, "cancelled")


def cancellation_fee(order, picked=False):
    """The fee kept on cancellation, in the order's currency."""
    if not picked or order.channel not in FEE_CHANNELS:
        return Decimal("0.00")
    return percent_of(order.list_amount, RESTOCKING_FEE_PERCENT)


def refund_due(order, picked=False):
    """What the customer gets back on cancellation, in the order's currency."""
    if order.status == "fraud_hold" or order.status == "pending":
        return Decimal("0.00")
    paid = order.list_amount + order.shipping_fee
    return paid - cancellation_fee(order, picked)


def reason_is_valid(reason):
    return reason in {"customer_request", "out_of_stock", "fraud", "duplicate", "address_problem"}


def summarize(orders):
    """``{"cancellable": n, "final": n}`` over ``orders``."""
    cancellable = sum(1 for order in orders if can_cancel(order))
    return {"cancellable": cancellable, "final": len(orders) - cancellable}


def cancellation_note(order, reason, picked=False):
    """The text of the cancellation e-mail's summary line."""
    if not reason_is_valid(reason):
        raise ValueError(f"unknown cancellation reason {reason!r}")
    fee = cancellation_fee(order, picked)
    due = refund_due(order, picked)
    note = f"Order {order.order_id} cancelled ({reason.replace('_', ' ')})."
    if due:
        note += f" {due} {order.currency} will be refunded"
        if fee:
            note += f" after a restocking fee of {fee} {order.currency}"
        note += "."
    return note
