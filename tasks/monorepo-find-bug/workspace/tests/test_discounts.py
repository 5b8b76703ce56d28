from datetime import datetime, timezone
from decimal import Decimal

from stockroom.models import Order, OrderLine
from stockroom.orders.discounts import applies, line_discounts, shipping_waived

CODES = {
    "SPRING10": {"code": "SPRING10", "kind": "percent", "value": Decimal("10"), "min_order": Decimal("0"),
                 "valid_from": "2024-03-01", "valid_to": "2024-03-31", "channels": "web"},
    "WELCOME5": {"code": "WELCOME5", "kind": "fixed", "value": Decimal("5.00"), "min_order": Decimal("25.00"),
                 "valid_from": "2024-01-01", "valid_to": "2024-12-31", "channels": "web"},
    "FREESHIP": {"code": "FREESHIP", "kind": "free_shipping", "value": Decimal("0"), "min_order": Decimal("40.00"),
                 "valid_from": "2024-01-01", "valid_to": "2024-06-30", "channels": ""},
}


def order(code, placed="2024-03-10T10:00:00+00:00", channel="web", prices=("21.90", "11.90")):
    lines = tuple(OrderLine("X1", i, f"SKU{i}", 1, Decimal(p)) for i, p in enumerate(prices, start=1))
    return Order("X1", "K1", channel, "paid", datetime.fromisoformat(placed), "DE", "EUR", code, Decimal("0"), lines)


def test_percent_per_line():
    assert line_discounts(order("spring10"), CODES) == [Decimal("2.19"), Decimal("1.19")]


def test_fixed_is_allocated():
    parts = line_discounts(order("WELCOME5"), CODES)
    assert sum(parts) == Decimal("5.00")
    assert parts == [Decimal("3.24"), Decimal("1.76")]


def test_out_of_period_or_channel():
    assert not applies(CODES["SPRING10"], order("SPRING10", placed="2024-04-01T00:00:00+00:00"))
    assert not applies(CODES["SPRING10"], order("SPRING10", channel="marketplace"))
    assert line_discounts(order("UNKNOWN"), CODES) == [Decimal("0.00"), Decimal("0.00")]


def test_free_shipping():
    assert shipping_waived(order("FREESHIP", prices=("30.00", "15.00")), CODES)
    assert not shipping_waived(order("FREESHIP", prices=("30.00",)), CODES)
