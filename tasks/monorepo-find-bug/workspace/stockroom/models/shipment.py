"""Shipments."""
from dataclasses import dataclass
from decimal import Decimal

from ..dates import days_between, month_key


@dataclass(frozen=True)
class Shipment:
    """One parcel sent for an order. Large orders may ship in several parcels."""

    shipment_id: str
    order_id: str
    carrier: str
    service: str
    weight_g: int
    shipped_at: object
    delivered_at: object = None
    cost: Decimal = Decimal("0.00")
    tracking: str = ""

    @property
    def month(self):
        return month_key(self.shipped_at)

    @property
    def delivered(self):
        return self.delivered_at is not None

    def transit_days(self):
        """Days from hand-over to delivery, or None while in transit."""
        if self.delivered_at is None:
            return None
        return days_between(self.shipped_at, self.delivered_at)
