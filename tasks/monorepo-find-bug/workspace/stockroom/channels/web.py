"""The webshop (our own storefront).

Exports come from the shop system as JSON lines; the importer flattens them into our CSV columns.
Payments are captured by the payment provider, which charges a percentage plus a fixed fee per
transaction and pays out after two business days.
"""
from decimal import Decimal

from ..dates import parse_timestamp
from ..money import round_money

CODE = "web"
NAME = "Webshop"
PAYMENT_PERCENT = Decimal("0.014")
PAYMENT_FIXED = Decimal("0.25")
payout_delay_days = 2

_STATUS = {
    "new": "pending",
    "payment_received": "paid",
    "in_fulfilment": "paid",
    "dispatched": "shipped",
    "completed": "delivered",
    "canceled": "cancelled",
    "payment_failed": "failed",
    "review": "fraud_hold",
}


def normalize(raw):
    """One shop export record -> an ``orders.csv`` row (a dict of strings)."""
    shipping = raw.get("shipping_address") or {}
    return {
        "order_id": f"W{raw['number']}",
        "customer_id": raw["customer"]["id"],
        "channel": CODE,
        "status": _STATUS[raw["state"]],
        "placed_at": parse_timestamp(raw["created_at"]).isoformat().replace("+00:00", "Z"),
        "ship_country": shipping.get("country_code", "DE").upper(),
        "currency": raw.get("currency", "EUR").upper(),
        "discount_code": (raw.get("coupon") or "").upper(),
        "shipping_fee": str(raw.get("shipping_total", "0.00")),
    }


def normalize_lines(raw):
    """The record's items -> ``order_lines.csv`` rows."""
    order_id = f"W{raw['number']}"
    return [
        {
            "order_id": order_id,
            "line_no": str(index),
            "sku": item["sku"],
            "quantity": str(item["qty"]),
            "unit_price": str(item["price"]),
        }
        for index, item in enumerate(raw["items"], start=1)
    ]


def fees(order, line_totals):
    """Payment provider fee on the amount charged (lines only; shipping is charged separately)."""
    charged = sum((item.charged for item in line_totals), Decimal("0.00"))
    if charged <= 0:
        return Decimal("0.00")
    return round_money(charged * PAYMENT_PERCENT + PAYMENT_FIXED)
