"""Loading the whole data folder into model objects."""
from collections import defaultdict
from dataclasses import dataclass, field

from ..errors import DataError
from ..fx import RateTable
from ..models import Customer, Order, OrderLine, Product, Refund, Shipment, StockMovement
from . import csvio as c

PRODUCT_COLUMNS = {
    "sku": c.text, "name": c.text, "category": c.text, "vat_category": c.text,
    "list_price": c.decimal, "weight_g": c.integer, "length_mm": c.integer,
    "width_mm": c.integer, "height_mm": c.integer, "active": c.boolean,
    "bundle_of": c.text, "supplier": c.text, "unit_cost": c.decimal,
}
CUSTOMER_COLUMNS = {
    "customer_id": c.text, "name": c.text, "country": c.text, "email": c.text,
    "vat_id": c.text, "is_business": c.boolean, "created_on": c.text, "segment": c.text,
}
ORDER_COLUMNS = {
    "order_id": c.text, "customer_id": c.text, "channel": c.text, "status": c.text,
    "placed_at": c.timestamp, "ship_country": c.text, "currency": c.text,
    "discount_code": c.text, "shipping_fee": c.decimal,
}
LINE_COLUMNS = {
    "order_id": c.text, "line_no": c.integer, "sku": c.text, "quantity": c.integer,
    "unit_price": c.decimal,
}
REFUND_COLUMNS = {
    "refund_id": c.text, "order_id": c.text, "line_no": c.integer, "quantity": c.integer,
    "amount": c.decimal, "refunded_at": c.timestamp, "reason": c.text, "restock": c.boolean,
}
SHIPMENT_COLUMNS = {
    "shipment_id": c.text, "order_id": c.text, "carrier": c.text, "service": c.text,
    "weight_g": c.integer, "shipped_at": c.timestamp, "delivered_at": c.optional(c.timestamp),
    "cost": c.decimal, "tracking": c.text,
}
MOVEMENT_COLUMNS = {
    "movement_id": c.text, "sku": c.text, "warehouse": c.text, "kind": c.text,
    "quantity": c.integer, "moved_at": c.timestamp, "unit_cost": c.decimal, "reference": c.text,
}
RATE_COLUMNS = {"month": c.text, "currency": c.text, "eur_per_unit": c.text}
DISCOUNT_COLUMNS = {
    "code": c.text, "kind": c.text, "value": c.decimal, "min_order": c.decimal,
    "valid_from": c.text, "valid_to": c.text, "channels": c.text,
}


@dataclass
class Dataset:
    """Everything in one data folder."""

    products: dict = field(default_factory=dict)
    customers: dict = field(default_factory=dict)
    orders: list = field(default_factory=list)
    refunds: list = field(default_factory=list)
    shipments: list = field(default_factory=list)
    movements: list = field(default_factory=list)
    rates: RateTable = field(default_factory=RateTable)
    discount_codes: dict = field(default_factory=dict)

    def order(self, order_id):
        for order in self.orders:
            if order.order_id == order_id:
                return order
        raise KeyError(order_id)

    def orders_by_id(self):
        return {order.order_id: order for order in self.orders}


def _bundle(text):
    """``"COF-001x1;MUG-002x2"`` -> ``(("COF-001", 1), ("MUG-002", 2))``."""
    if not text:
        return ()
    parts = []
    for item in text.split(";"):
        sku, _, quantity = item.strip().rpartition("x")
        parts.append((sku, int(quantity)))
    return tuple(parts)


def load_dataset(data_dir):
    """Reads every export in ``data_dir`` (a Path). Missing optional files give empty lists."""
    ds = Dataset()
    for row in c.read_rows(data_dir / "products.csv", PRODUCT_COLUMNS):
        row["bundle_of"] = _bundle(row["bundle_of"])
        ds.products[row["sku"]] = Product(**row)
    for row in c.read_rows(data_dir / "customers.csv", CUSTOMER_COLUMNS):
        ds.customers[row["customer_id"]] = Customer(**row)

    lines = defaultdict(list)
    for row in c.read_rows(data_dir / "order_lines.csv", LINE_COLUMNS):
        if row["sku"] not in ds.products:
            raise DataError("order_lines.csv", 0, f"order {row['order_id']}: unknown SKU {row['sku']}")
        lines[row["order_id"]].append(OrderLine(**row))
    for row in c.read_rows(data_dir / "orders.csv", ORDER_COLUMNS):
        order_lines = sorted(lines.pop(row["order_id"], []), key=lambda line: line.line_no)
        ds.orders.append(Order(**row, lines=tuple(order_lines)))
    if lines:
        orphans = ", ".join(sorted(lines)[:5])
        raise DataError("order_lines.csv", 0, f"lines for unknown orders: {orphans}")

    ds.refunds = [Refund(**row) for row in c.read_optional_rows(data_dir / "refunds.csv", REFUND_COLUMNS)]
    ds.shipments = [
        Shipment(**row) for row in c.read_optional_rows(data_dir / "shipments.csv", SHIPMENT_COLUMNS)
    ]
    ds.movements = [
        StockMovement(**row)
        for row in c.read_optional_rows(data_dir / "stock_movements.csv", MOVEMENT_COLUMNS)
    ]
    ds.rates = RateTable.from_rows(c.read_optional_rows(data_dir / "fx_rates.csv", RATE_COLUMNS))
    for row in c.read_optional_rows(data_dir / "discount_codes.csv", DISCOUNT_COLUMNS):
        ds.discount_codes[row["code"].upper()] = row
    return ds
