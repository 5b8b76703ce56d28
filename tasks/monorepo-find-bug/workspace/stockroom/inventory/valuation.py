"""Inventory valuation, first in, first out (FIFO).

Receipts create cost layers (units at a unit cost); sales consume the oldest layers first.
Returns put units back at the cost of the layer most recently consumed, and adjustments are
valued at the oldest remaining layer's cost (positive) or consume like sales (negative).
Transfers between warehouses keep their cost: valuation is per SKU, not per warehouse.
"""
from collections import defaultdict, deque
from decimal import Decimal

from ..money import round_money


class FifoLedger:
    """The cost layers of one SKU."""

    def __init__(self):
        self.layers = deque()  # [units, unit_cost]
        self.last_consumed_cost = Decimal("0.00")
        self.cost_of_sales = Decimal("0.00")

    def receive(self, units, unit_cost):
        self.layers.append([units, unit_cost])

    def consume(self, units):
        """Takes ``units`` from the oldest layers; returns their total cost."""
        cost = Decimal("0.00")
        remaining = units
        while remaining > 0 and self.layers:
            layer = self.layers[0]
            taken = min(remaining, layer[0])
            cost += layer[1] * taken
            self.last_consumed_cost = layer[1]
            layer[0] -= taken
            remaining -= taken
            if layer[0] == 0:
                self.layers.popleft()
        if remaining > 0:
            # selling stock we never received: valued at the last known cost
            cost += self.last_consumed_cost * remaining
        return cost

    def units(self):
        return sum(layer[0] for layer in self.layers)

    def value(self):
        return round_money(sum((layer[1] * layer[0] for layer in self.layers), Decimal("0.00")))


def ledgers(movements, until=None):
    """``{sku: FifoLedger}`` after replaying ``movements`` in time order."""
    books = defaultdict(FifoLedger)
    for movement in sorted(movements, key=lambda m: (m.moved_at, m.movement_id)):
        if until is not None and movement.moved_at > until:
            continue
        ledger = books[movement.sku]
        if movement.kind == "receipt":
            ledger.receive(movement.quantity, movement.unit_cost)
        elif movement.kind == "sale":
            ledger.cost_of_sales += ledger.consume(-movement.quantity)
        elif movement.kind == "return":
            ledger.receive(movement.quantity, ledger.last_consumed_cost)
        elif movement.kind == "adjustment":
            if movement.quantity > 0:
                cost = ledger.layers[0][1] if ledger.layers else ledger.last_consumed_cost
                ledger.receive(movement.quantity, cost)
            else:
                ledger.consume(-movement.quantity)
        # transfers move units between warehouses; the SKU's layers are unchanged
    return dict(books)


def stock_value(movements, until=None):
    """``{sku: value}`` of the stock on hand, and the total."""
    values = {sku: ledger.value() for sku, ledger in sorted(ledgers(movements, until).items())}
    return values, sum(values.values(), Decimal("0.00"))


def cost_of_sales(movements, until=None):
    return {sku: round_money(ledger.cost_of_sales) for sku, ledger in sorted(ledgers(movements, until).items())}
