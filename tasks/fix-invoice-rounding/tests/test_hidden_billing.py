from decimal import Decimal

import pytest

import billing
from billing import Invoice, LineItem, compute_totals, format_money, line_amount, round_money

D = Decimal


def _exact(value, text):
    """Same value AND same exponent (so 12.3 != 12.30 for this purpose)."""
    assert isinstance(value, Decimal), f"{value!r} is not a Decimal"
    assert value == D(text) and value.as_tuple().exponent == D(text).as_tuple().exponent, (
        f"{value!r} != Decimal({text!r})"
    )


# --- Finance's reference cases (same as tests/test_total.py) -----------------------------


def test_reference_simple_invoice():
    inv = Invoice("A-1")
    inv.add("Widget", "10.00", 3, "0.20")
    t = compute_totals(inv)
    _exact(t.subtotal, "30.00")
    _exact(t.tax, "6.00")
    _exact(t.total, "36.00")


def test_reference_half_cent():
    inv = Invoice("A-2")
    inv.add("Sample", "1.005", 1)
    _exact(compute_totals(inv).total, "1.01")


def test_reference_tax_on_invoice():
    inv = Invoice("A-3")
    for _ in range(3):
        inv.add("Sticker", "0.99", 1, "0.075")
    t = compute_totals(inv)
    _exact(t.subtotal, "2.97")
    _exact(t.tax, "0.22")
    _exact(t.total, "3.19")


def test_reference_yen():
    inv = Invoice("A-4", currency="JPY")
    inv.add("Tea", "1234.5", 1)
    _exact(compute_totals(inv).total, "1235")


# --- rounding ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "amount, currency, expected",
    [
        ("2.675", "USD", "2.68"),
        ("2.665", "USD", "2.67"),
        ("0.125", "EUR", "0.13"),
        ("1.005", "USD", "1.01"),
        ("-2.675", "USD", "-2.68"),
        ("2.674999", "USD", "2.67"),
        ("10", "USD", "10.00"),
        ("1234.5", "JPY", "1235"),
        ("1233.5", "JPY", "1234"),
        ("0.0005", "KWD", "0.001"),
        ("1.2345", "KWD", "1.235"),
    ],
)
def test_round_money_half_up(amount, currency, expected):
    _exact(round_money(D(amount), currency), expected)


@pytest.mark.parametrize("value, expected", [(2.675, "2.68"), (1.005, "1.01"), (0.125, "0.13")])
def test_round_money_float_means_its_repr(value, expected):
    _exact(round_money(value, "USD"), expected)


def test_round_money_unknown_currency():
    with pytest.raises(ValueError):
        round_money(D("1"), "XXX")


# --- line amounts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "price, qty, expected",
    [
        ("0.335", 1, "0.34"),
        ("0.335", 3, "1.01"),  # 1.005
        ("19.99", 7, "139.93"),
        (D("4.445"), 1, "4.45"),
        (2.675, 1, "2.68"),
        (3, 2, "6.00"),
        ("0.10", 3, "0.30"),
        ("-2.675", 1, "-2.68"),
    ],
)
def test_line_amount(price, qty, expected):
    _exact(line_amount(LineItem("x", price, qty), "USD"), expected)


def test_decimal_quantity():
    _exact(line_amount(LineItem("hours", "80.00", D("1.5")), "USD"), "120.00")
    _exact(line_amount(LineItem("hours", "33.33", "0.5"), "USD"), "16.67")  # 16.665


def test_tenths_add_up_exactly():
    inv = Invoice("B-1")
    for _ in range(10):
        inv.add("dime", 0.1, 1)
    t = compute_totals(inv)
    _exact(t.subtotal, "1.00")
    _exact(t.total, "1.00")


# --- tax -----------------------------------------------------------------------------------


def test_tax_grouped_by_rate():
    inv = Invoice("C-1")
    for _ in range(3):
        inv.add("Sticker", "0.99", 1, "0.075")  # 2.97 * 0.075 = 0.22275
    inv.add("Book", "12.34", 1, "0")
    inv.add("Lamp", "10.05", 1, "0.19")  # 1.9095
    inv.add("Bulb", "0.05", 1, "0.19")  # 10.10 * 0.19 = 1.919
    t = compute_totals(inv)
    _exact(t.subtotal, "25.41")
    assert set(t.tax_by_rate) == {D("0.075"), D("0"), D("0.19")}
    _exact(t.tax_by_rate[D("0.075")], "0.22")
    _exact(t.tax_by_rate[D("0")], "0.00")
    _exact(t.tax_by_rate[D("0.19")], "1.92")
    _exact(t.tax, "2.14")
    _exact(t.total, "27.55")


def test_equal_rates_written_differently_are_one_rate():
    inv = Invoice("C-2")
    inv.add("a", "0.03", 1, "0.2")
    inv.add("b", "0.03", 1, D("0.20"))
    inv.add("c", "0.03", 1, "0.200")
    t = compute_totals(inv)  # 0.09 * 0.2 = 0.018 -> 0.02 (per line it would be 3 * 0.01)
    assert len(t.tax_by_rate) == 1
    _exact(t.tax, "0.02")
    _exact(t.total, "0.11")


def test_tax_half_up_on_the_sum():
    inv = Invoice("C-3", currency="EUR")
    inv.add("a", "0.25", 1, "0.1")
    inv.add("b", "0.25", 1, "0.1")
    inv.add("c", "0.25", 1, "0.1")
    inv.add("d", "0.25", 1, "0.1")
    inv.add("e", "0.25", 1, "0.1")  # 1.25 * 0.1 = 0.125 -> 0.13; per line 5 * 0.03 = 0.15
    t = compute_totals(inv)
    _exact(t.tax, "0.13")
    _exact(t.total, "1.38")


def test_yen_invoice_with_tax():
    inv = Invoice("C-4", currency="JPY")
    inv.add("Tea", 150, 3, "0.08")
    inv.add("Cake", 275, 1, "0.08")  # 725 * 0.08 = 58.0
    inv.add("Bag", "3", 1, "0.1")  # 0.3 -> 0
    inv.add("Box", "3", 1, "0.1")  # 0.6 -> 1 (per line it would be 0)
    t = compute_totals(inv)
    _exact(t.subtotal, "731")
    _exact(t.tax_by_rate[D("0.08")], "58")
    _exact(t.tax_by_rate[D("0.1")], "1")
    _exact(t.total, "790")


def test_kwd_three_places():
    inv = Invoice("C-5", currency="KWD")
    inv.add("Service", "1.2345", 2, "0.05")  # 2.469 ; 2.469 * 0.05 = 0.12345 -> 0.123
    t = compute_totals(inv)
    _exact(t.subtotal, "2.469")
    _exact(t.tax, "0.123")
    _exact(t.total, "2.592")


def test_credit_line():
    inv = Invoice("C-6")
    inv.add("Consulting", "100.00", 2, "0.2")
    inv.add("Goodwill credit", "-10.005", 1, "0.2")  # -10.01
    t = compute_totals(inv)
    _exact(t.subtotal, "189.99")
    _exact(t.tax, "38.00")  # 189.99 * 0.2 = 37.998
    _exact(t.total, "227.99")


def test_empty_invoice():
    t = compute_totals(Invoice("E-0"))
    assert t.subtotal == 0 and t.tax == 0 and t.total == 0
    assert t.tax_by_rate == {}


def test_float_inputs_are_taken_at_face_value():
    inv = Invoice("F-1")
    inv.add("a", 2.675, 1, 0.2)  # 2.68 ; 0.536 -> 0.54
    t = compute_totals(inv)
    _exact(t.subtotal, "2.68")
    _exact(t.tax, "0.54")
    _exact(t.total, "3.22")


# --- unchanged behaviour -------------------------------------------------------------------


def test_format_money_unchanged():
    assert format_money(D("1234.5"), "USD") == "$1,234.50"
    assert format_money(D("1234.5"), "JPY") == "¥1,235"
    assert format_money(D("-3.1"), "EUR") == "-€3.10"
    assert format_money(D("0.5"), "KWD") == "KD 0.500"


def test_validation_unchanged():
    with pytest.raises(ValueError):
        LineItem("x", "1.00", -1)
    with pytest.raises(ValueError):
        LineItem("x", "1.00", 1, "-0.1")
    with pytest.raises(ValueError):
        compute_totals(Invoice("X", currency="XXX", lines=[LineItem("x", "1")]))


def test_render_uses_the_same_totals():
    inv = Invoice("R-1")
    for _ in range(3):
        inv.add("Sticker", "0.99", 1, "0.075")
    text = billing.render_invoice(inv)
    assert "$3.19" in text
    assert "$0.22" in text
