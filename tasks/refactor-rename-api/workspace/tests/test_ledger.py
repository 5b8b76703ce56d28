from decimal import Decimal

from ledger import Cart, annual_charge, invoice_total, monthly_charge, quote


def test_cart_total():
    cart = Cart(tax_rate="0.2")
    cart.add("pen", "1.50", 4)
    cart.add("pad", "3.25")
    assert cart.total() == Decimal("11.10")
    assert cart.total(discount_pct=10) == Decimal("9.99")


def test_invoice_total():
    inv = {"number": "7", "lines": [{"price": "10", "qty": 2}], "tax_rate": "0.1"}
    assert invoice_total(inv) == Decimal("22.00")


def test_quote_tiers():
    assert quote([("100", 1)], "gold") == Decimal("90.00")


def test_subscriptions():
    assert monthly_charge("9.99", 3) == Decimal("29.97")
    assert annual_charge("10", 1) == Decimal("102.00")
