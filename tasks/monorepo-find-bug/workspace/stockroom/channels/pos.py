"""Point of sale: the till we use at trade fairs.

The till exports one CSV per fair day. Card payments go through the card terminal provider, which
charges a flat percentage; cash sales have no fees. Trade fair customers are walk-ins and get the
anonymous customer id ``POS-WALKIN`` unless they show a customer card.
"""
from decimal import Decimal

from ..dates import parse_timestamp
from ..money import round_money

CODE = "pos"
NAME = "Trade fair / POS"
CARD_PERCENT = Decimal("0.0095")
payout_delay_days = 1
WALK_IN = "POS-WALKIN"


def normalize(raw):
    """One till receipt -> an ``orders.csv`` row (a dict of strings)."""
    return {
        "order_id": f"P{raw['fair']}-{raw['receipt']}",
        "customer_id": raw.get("customer_card") or WALK_IN,
        "channel": CODE,
        "status": "delivered",
        "placed_at": parse_timestamp(raw["time"]).isoformat().replace("+00:00", "Z"),
        "ship_country": raw.get("fair_country", "DE").upper(),
        "currency": raw.get("currency", "EUR").upper(),
        "discount_code": raw.get("voucher", ""),
        "shipping_fee": "0.00",
    }


def normalize_lines(raw):
    order_id = f"P{raw['fair']}-{raw['receipt']}"
    return [
        {
            "order_id": order_id,
            "line_no": str(index),
            "sku": item["plu"],
            "quantity": str(item["qty"]),
            "unit_price": str(item["price"]),
        }
        for index, item in enumerate(raw["items"], start=1)
    ]


def fees(order, line_totals, paid_by_card=True):
    """Card terminal fee on the amount charged; none for cash."""
    if not paid_by_card:
        return Decimal("0.00")
    charged = sum((item.charged for item in line_totals), Decimal("0.00"))
    return round_money(charged * CARD_PERCENT)
