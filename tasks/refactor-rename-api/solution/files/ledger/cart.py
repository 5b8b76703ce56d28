"""Shopping carts."""

from ledger.pricing import compute_total


class Cart:
    def __init__(self, tax_rate=0):
        self.tax_rate = tax_rate
        self._items = {}  # sku -> [unit_price, quantity]

    def add(self, sku: str, unit_price, quantity: int = 1) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if sku in self._items:
            self._items[sku][1] += quantity
        else:
            self._items[sku] = [unit_price, quantity]

    def remove(self, sku: str) -> None:
        self._items.pop(sku, None)

    def lines(self) -> list:
        return [(price, qty) for price, qty in self._items.values()]

    def total(self, discount_pct=0):
        return compute_total(self.lines(), discount_pct=discount_pct, tax_rate=self.tax_rate)
