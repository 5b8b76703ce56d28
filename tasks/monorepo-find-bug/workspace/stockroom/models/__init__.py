"""Plain data classes; no I/O and no business rules beyond simple derived values."""
from .customer import Customer
from .order import Order, OrderLine
from .product import Product
from .refund import Refund
from .shipment import Shipment
from .stock import StockMovement

__all__ = ["Customer", "Order", "OrderLine", "Product", "Refund", "Shipment", "StockMovement"]
