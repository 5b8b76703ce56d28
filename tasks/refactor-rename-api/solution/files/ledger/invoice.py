"""Invoices stored as plain dicts (as they come from the orders API)."""

from ledger import pricing


def _lines(invoice: dict) -> list:
    return [(line["price"], line["qty"]) for line in invoice["lines"]]


def invoice_total(invoice: dict):
    return pricing.compute_total(
        _lines(invoice),
        invoice.get("discount_pct", 0),
        invoice.get("tax_rate", 0),
    )


def invoice_summary(invoice: dict) -> str:
    count = sum(line["qty"] for line in invoice["lines"])
    return f"Invoice {invoice['number']}: {count} item(s), total {invoice_total(invoice)}"
