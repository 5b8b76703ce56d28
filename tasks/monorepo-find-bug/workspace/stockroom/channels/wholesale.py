"""Wholesale: business customers ordering by EDI or through their account manager.

Wholesale orders arrive as EDIFACT ORDERS messages that the integration layer turns into a simple
key/value format. Prices are net for reverse-charged customers and gross otherwise (the account
manager's tool shows both). There are no channel fees; invoices are due in 30 days.
"""
from decimal import Decimal

from ..dates import parse_timestamp

CODE = "wholesale"
NAME = "Wholesale"
payout_delay_days = 30


def normalize(raw):
    """One parsed ORDERS message -> an ``orders.csv`` row (a dict of strings)."""
    return {
        "order_id": f"B{raw['BGM']}",
        "customer_id": raw["NAD_BY"],
        "channel": CODE,
        "status": "paid" if raw.get("CONFIRMED") == "Y" else "pending",
        "placed_at": parse_timestamp(raw["DTM_137"]).isoformat().replace("+00:00", "Z"),
        "ship_country": raw["NAD_DP_COUNTRY"].upper(),
        "currency": raw.get("CUX", "EUR").upper(),
        "discount_code": "",
        "shipping_fee": raw.get("ALC_FREIGHT", "0.00"),
    }


def normalize_lines(raw):
    """``LIN`` segments -> ``order_lines.csv`` rows."""
    lines = []
    for segment in raw["LIN"]:
        lines.append(
            {
                "order_id": f"B{raw['BGM']}",
                "line_no": segment["number"],
                "sku": segment["article"],
                "quantity": segment["QTY_21"],
                "unit_price": segment["PRI_AAA"],
            }
        )
    return lines


def fees(order, line_totals):
    """No channel fees for wholesale."""
    return Decimal("0.00")


def payment_due(invoice_date):
    from datetime import timedelta

    return invoice_date + timedelta(days=payout_delay_days)
