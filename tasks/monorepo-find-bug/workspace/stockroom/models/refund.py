"""Refunds."""
from dataclasses import dataclass
from decimal import Decimal

from ..dates import month_key

#: Why goods came back; used by the returns report.
REASONS = {
    "damaged": "Arrived damaged",
    "wrong_item": "Wrong item sent",
    "not_as_described": "Not as described",
    "changed_mind": "Changed mind",
    "late": "Arrived too late",
    "other": "Other",
}


@dataclass(frozen=True)
class Refund:
    """Money paid back for (part of) one order line.

    ``amount`` is what was paid back, in the order's currency, on the same basis as the line's
    price (VAT-inclusive unless the order was reverse-charged). A refund belongs to the month it
    was paid out (``refunded_at``), not to the month of the order.
    """

    refund_id: str
    order_id: str
    line_no: int
    quantity: int
    amount: Decimal
    refunded_at: object
    reason: str = "other"
    restock: bool = True

    def __post_init__(self):
        if self.reason not in REASONS:
            raise ValueError(f"refund {self.refund_id}: unknown reason {self.reason!r}")
        if self.amount < 0:
            raise ValueError(f"refund {self.refund_id}: negative amount")

    @property
    def month(self):
        return month_key(self.refunded_at)

    @property
    def reason_text(self):
        return REASONS[self.reason]
