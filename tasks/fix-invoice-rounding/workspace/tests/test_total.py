"""Finance's reference invoices. Do not edit: these numbers come from the accounting system."""

from decimal import Decimal

from billing import Invoice, compute_totals


def test_simple_invoice():
    inv = Invoice("A-1")
    inv.add("Widget", "10.00", 3, "0.20")
    totals = compute_totals(inv)
    assert totals.subtotal == Decimal("30.00")
    assert totals.tax == Decimal("6.00")
    assert totals.total == Decimal("36.00")


def test_half_cent_rounds_up():
    inv = Invoice("A-2")
    inv.add("Sample", "1.005", 1)
    assert compute_totals(inv).total == Decimal("1.01")


def test_tax_is_charged_on_the_invoice_not_per_line():
    inv = Invoice("A-3")
    for _ in range(3):
        inv.add("Sticker", "0.99", 1, "0.075")
    totals = compute_totals(inv)
    assert totals.subtotal == Decimal("2.97")
    assert totals.tax == Decimal("0.22")
    assert totals.total == Decimal("3.19")


def test_yen_has_no_minor_unit():
    inv = Invoice("A-4", currency="JPY")
    inv.add("Tea", "1234.5", 1)
    assert compute_totals(inv).total == Decimal("1235")
