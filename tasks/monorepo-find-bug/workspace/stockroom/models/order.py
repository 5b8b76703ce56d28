"""Orders and their lines."""
from dataclasses import dataclass, field
from decimal import Decimal

from ..dates import month_key


@dataclass(frozen=True)
class OrderLine:
    """One line of an order.

    ``unit_price`` is the price charged per unit in the order's currency: VAT-inclusive for
    consumers; for business customers whose order is reverse-charged, it is the net price.
    """

    order_id: str
    line_no: int
    sku: str
    quantity: int
    unit_price: Decimal

    @property
    def list_amount(self):
        """Quantity times unit price, before any discount."""
        return self.unit_price * self.quantity


@dataclass(frozen=True)
class Order:
    """An order as exported by the order system.

    ``ship_country`` decides the VAT region; ``placed_at`` (UTC) decides the reporting month.
    """

    order_id: str
    customer_id: str
    channel: str
    status: str
    placed_at: object
    ship_country: str
    currency: str = "EUR"
    discount_code: str = ""
    shipping_fee: Decimal = Decimal("0.00")
    lines: tuple = field(default_factory=tuple)

    @property
    def month(self):
        """The ``YYYY-MM`` reporting month of the order."""
        return month_key(self.placed_at)

    @property
    def units(self):
        return sum(line.quantity for line in self.lines)

    @property
    def list_amount(self):
        """The sum of the lines' list amounts (order currency, before discounts)."""
        total = Decimal("0.00")
        for line in self.lines:
            total += line.list_amount
        return total

    def line(self, line_no):
        for line in self.lines:
            if line.line_no == line_no:
                return line
        raise KeyError(f"order {self.order_id} has no line {line_no}")

    def skus(self):
        return sorted({line.sku for line in self.lines})

    def with_lines(self, lines):
        """A copy of the order with other lines (the dataclass is frozen)."""
        return Order(
            order_id=self.order_id,
            customer_id=self.customer_id,
            channel=self.channel,
            status=self.status,
            placed_at=self.placed_at,
            ship_country=self.ship_country,
            currency=self.currency,
            discount_code=self.discount_code,
            shipping_fee=self.shipping_fee,
            lines=tuple(lines),
        )
