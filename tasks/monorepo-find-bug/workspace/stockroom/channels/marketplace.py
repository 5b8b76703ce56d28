"""The marketplace channel (orders placed on a third-party marketplace, fulfilled by us).

The marketplace sends a CSV settlement report. It keeps a commission on the gross line amount and
pays out every 14 days. Marketplace promotions are applied by the marketplace and appear in our
data as a discount code starting with ``MP-``; the marketplace funds them, so they reduce what the
customer paid but not what we are paid.
"""
from decimal import Decimal

from ..config import MARKETPLACE_COMMISSION
from ..dates import parse_timestamp
from ..money import round_money

CODE = "marketplace"
NAME = "Marketplace"
payout_delay_days = 14

_STATUS = {
    "Pending": "pending",
    "Unshipped": "paid",
    "Shipped": "shipped",
    "Delivered": "delivered",
    "Canceled": "cancelled",
    "Returned": "returned",
}


def normalize(raw):
    """One settlement report row -> an ``orders.csv`` row (a dict of strings)."""
    return {
        "order_id": f"M{raw['amazon-order-id'].replace('-', '')}",
        "customer_id": f"MP-{raw['buyer-id']}",
        "channel": CODE,
        "status": _STATUS[raw["order-status"]],
        "placed_at": parse_timestamp(raw["purchase-date"]).isoformat().replace("+00:00", "Z"),
        "ship_country": raw["ship-country"].upper(),
        "currency": raw["currency"].upper(),
        "discount_code": raw.get("promotion-ids", "").split(",")[0].strip(),
        "shipping_fee": raw.get("shipping-price", "0.00") or "0.00",
    }


def normalize_lines(raw_items):
    """Item rows of one order -> ``order_lines.csv`` rows."""
    lines = []
    for index, item in enumerate(raw_items, start=1):
        quantity = int(item["quantity-purchased"])
        unit = Decimal(item["item-price"]) / quantity
        lines.append(
            {
                "order_id": f"M{item['amazon-order-id'].replace('-', '')}",
                "line_no": str(index),
                "sku": item["sku"],
                "quantity": str(quantity),
                "unit_price": str(round_money(unit)),
            }
        )
    return lines


def fees(order, line_totals):
    """Commission on the gross line amounts before marketplace-funded promotions."""
    gross = sum((item.list_amount for item in line_totals), Decimal("0.00"))
    return round_money(gross * MARKETPLACE_COMMISSION)


def is_marketplace_promotion(code):
    return code.upper().startswith("MP-")
