"""Plain-text rendering of an invoice."""

from billing.currency import format_money
from billing.totals import compute_totals, line_amount


def render_invoice(invoice) -> str:
    cur = invoice.currency
    rows = [f"Invoice {invoice.number} ({cur})", ""]
    for line in invoice.lines:
        amount = format_money(line_amount(line, cur), cur)
        rows.append(f"{line.description:<30} {line.quantity:>4} x {amount:>12}")
    totals = compute_totals(invoice)
    rows.append("")
    rows.append(f"{'Subtotal':<30} {format_money(totals.subtotal, cur):>21}")
    for rate, tax in sorted(totals.tax_by_rate.items()):
        label = f"Tax {rate * 100:g}%"
        rows.append(f"{label:<30} {format_money(tax, cur):>21}")
    rows.append(f"{'Total':<30} {format_money(totals.total, cur):>21}")
    return "\n".join(rows)
