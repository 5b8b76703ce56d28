"""The order status machine.

::

    pending -> paid -> shipped -> delivered -> partially_returned -> returned
       |        |        |
       v        v        v
    failed   cancelled  (lost: handled as a claim, status stays shipped)
    pending -> fraud_hold -> paid | cancelled

Only the transitions listed in ``TRANSITIONS`` are allowed. Reports count an order as a sale when
its status is in ``config.REVENUE_STATUSES``; returns are then accounted as refunds, never by
removing the sale.
"""
from ..config import EXCLUDED_STATUSES, REVENUE_STATUSES
from ..errors import InvalidTransition

TRANSITIONS = {
    "pending": {"paid", "failed", "fraud_hold", "cancelled"},
    "fraud_hold": {"paid", "cancelled"},
    "paid": {"shipped", "cancelled"},
    "shipped": {"delivered"},
    "delivered": {"partially_returned", "returned"},
    "partially_returned": {"returned"},
    "returned": set(),
    "cancelled": set(),
    "failed": set(),
}

ALL_STATUSES = frozenset(TRANSITIONS)


def can_transition(current, wanted):
    return wanted in TRANSITIONS.get(current, set())


def transition(order, wanted):
    """A copy of ``order`` with status ``wanted``; raises InvalidTransition if not allowed."""
    if not can_transition(order.status, wanted):
        raise InvalidTransition(order.order_id, order.status, wanted)
    return type(order)(**{**order.__dict__, "status": wanted})


def counts_as_sale(order):
    """Whether reports count ``order`` as a sale."""
    if order.status in EXCLUDED_STATUSES:
        return False
    return order.status in REVENUE_STATUSES


def is_final(status):
    return not TRANSITIONS.get(status)


def path_to(current, wanted):
    """The shortest list of statuses leading from ``current`` to ``wanted`` (excluding current)."""
    frontier = [(current, [])]
    seen = {current}
    while frontier:
        status, path = frontier.pop(0)
        if status == wanted:
            return path
        for following in sorted(TRANSITIONS.get(status, ())):
            if following not in seen:
                seen.add(following)
                frontier.append((following, path + [following]))
    return None


def count_by_status(orders):
    counts = {status: 0 for status in sorted(ALL_STATUSES)}
    for order in orders:
        counts[order.status] = counts.get(order.status, 0) + 1
    return counts


def unknown_statuses(orders):
    return sorted({order.status for order in orders if order.status not in ALL_STATUSES})
