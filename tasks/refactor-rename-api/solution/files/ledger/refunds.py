"""Refunds for returned items."""

from ledger.pricing import compute_total


def refund_amount(original_lines, returned_lines, discount_pct=0, tax_rate=0):
    """What to pay back: the returned lines at the order's discount and tax, never more than
    the order itself cost."""
    paid = compute_total(original_lines, discount_pct, tax_rate)
    returned = compute_total(returned_lines, discount_pct, tax_rate)
    return min(paid, returned)
