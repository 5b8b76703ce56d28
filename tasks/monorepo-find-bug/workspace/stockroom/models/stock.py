"""Stock movements.

Stock is never stored as a number: it is the sum of movements per SKU and warehouse. Kinds:

- ``receipt``: goods received from a supplier (positive)
- ``sale``: goods picked for an order (negative)
- ``return``: goods back from a customer and restocked (positive)
- ``adjustment``: cycle-count corrections (either sign)
- ``transfer_out`` / ``transfer_in``: between warehouses
"""
from dataclasses import dataclass
from decimal import Decimal

KINDS = ("receipt", "sale", "return", "adjustment", "transfer_out", "transfer_in")
WAREHOUSES = ("BER", "RTM")


@dataclass(frozen=True)
class StockMovement:
    movement_id: str
    sku: str
    warehouse: str
    kind: str
    quantity: int
    moved_at: object
    unit_cost: Decimal = Decimal("0.00")
    reference: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"movement {self.movement_id}: unknown kind {self.kind!r}")
        if self.warehouse not in WAREHOUSES:
            raise ValueError(f"movement {self.movement_id}: unknown warehouse {self.warehouse!r}")
        if self.kind in ("receipt", "return", "transfer_in") and self.quantity <= 0:
            raise ValueError(f"movement {self.movement_id}: {self.kind} must be positive")
        if self.kind in ("sale", "transfer_out") and self.quantity >= 0:
            raise ValueError(f"movement {self.movement_id}: {self.kind} must be negative")

    @property
    def inbound(self):
        return self.quantity > 0
