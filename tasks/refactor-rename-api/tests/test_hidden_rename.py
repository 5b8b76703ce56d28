import ast
import inspect
import os
import pathlib
import subprocess
import sys
import warnings
from decimal import Decimal

import pytest

import ledger
import ledger.pricing as pricing
from ledger import (
    Cart,
    annual_charge,
    invoice_summary,
    invoice_total,
    monthly_charge,
    quote,
    refund_amount,
    revenue_report,
)

PKG = pathlib.Path(ledger.__file__).resolve().parent
USERS = ["cart.py", "invoice.py", "quotes.py", "subscriptions.py", "refunds.py", "report.py"]

CASES = [
    (([("1.50", 4), ("3.25", 1)],), {}, "9.25"),
    (([("1.50", 4), ("3.25", 1)], 10, "0.2"), {}, "9.99"),
    (([("19.99", 3)],), {"tax_rate": "0.075"}, "64.47"),
    (([(Decimal("0.333"), 3)],), {}, "1.00"),
    (([(2.675, 1)],), {}, "2.68"),
    (([],), {}, "0.00"),
    (([("100", 1)],), {"discount_pct": 100}, "0.00"),
    (([("10", 2), ("5", 1)],), {"discount_pct": "12.5", "tax_rate": "0.19"}, "26.03"),
]


def _tree(name):
    return ast.parse((PKG / name).read_text(encoding="utf-8"), filename=name)


def _names_used(tree):
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.alias):
            used.add(node.name.split(".")[-1])
            if node.asname:
                used.add(node.asname)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            used.add(node.value)
    return used


# --- the new name -------------------------------------------------------------------------


def test_compute_total_defined_in_pricing():
    tree = _tree("pricing.py")
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "compute_total" in defs
    assert "calc" not in _names_used(defs["compute_total"])  # the real code lives here
    assert pricing.compute_total.__name__ == "compute_total"
    params = inspect.signature(pricing.compute_total).parameters
    assert list(params) == ["lines", "discount_pct", "tax_rate"]
    assert params["discount_pct"].default == 0 and params["tax_rate"].default == 0
    assert "discount" in (pricing.compute_total.__doc__ or "")


def test_compute_total_exported():
    assert ledger.compute_total is pricing.compute_total
    assert "compute_total" in ledger.__all__


@pytest.mark.parametrize("args, kwargs, expected", CASES)
def test_compute_total_behaviour(args, kwargs, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pricing.compute_total(*args, **kwargs)
    assert isinstance(result, Decimal)
    assert result == Decimal(expected)
    assert str(result) == expected


@pytest.mark.parametrize("kwargs", [{"discount_pct": -1}, {"discount_pct": 101}, {"tax_rate": -0.1}])
def test_compute_total_validation(kwargs):
    with pytest.raises(ValueError):
        pricing.compute_total([("1", 1)], **kwargs)


# --- the deprecated alias -----------------------------------------------------------------


@pytest.mark.parametrize("args, kwargs, expected", CASES)
def test_calc_alias_warns_and_matches(args, kwargs, expected):
    with pytest.warns(DeprecationWarning, match="compute_total") as record:
        result = pricing.calc(*args, **kwargs)
    assert result == Decimal(expected)
    assert any(w.filename == __file__ for w in record if w.category is DeprecationWarning)


def test_package_level_alias():
    with pytest.warns(DeprecationWarning, match="compute_total"):
        assert ledger.calc([("2", 2)], tax_rate="0.5") == Decimal("6.00")


def test_calc_alias_still_validates():
    with pytest.warns(DeprecationWarning):
        with pytest.raises(ValueError):
            pricing.calc([("1", 1)], discount_pct=150)


def test_importing_does_not_warn():
    env = dict(os.environ, PYTHONPATH=str(PKG.parent), PYTHONDONTWRITEBYTECODE="1")
    code = (
        "import ledger\n"
        "from ledger import calc, compute_total\n"
        "from ledger.pricing import calc as c2\n"
        "import ledger.cart, ledger.invoice, ledger.quotes, ledger.subscriptions\n"
        "import ledger.refunds, ledger.report\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# --- every user switched ------------------------------------------------------------------


@pytest.mark.parametrize("module", USERS)
def test_module_uses_new_name(module):
    used = _names_used(_tree(module))
    assert "calc" not in used, f"{module} still refers to calc"
    assert "_calc" not in used, f"{module} still refers to calc under an alias"
    assert "compute_total" in used, f"{module} does not use compute_total"


def test_no_other_module_refers_to_calc():
    for path in sorted(PKG.rglob("*.py")):
        if path.name in ("pricing.py", "__init__.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert "calc" not in _names_used(tree), path.name


# --- behaviour unchanged, without warnings -------------------------------------------------


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_cart(no_warnings):
    cart = Cart(tax_rate="0.2")
    cart.add("pen", "1.50", 4)
    cart.add("pad", "3.25")
    cart.add("pen", "1.50", 1)
    assert cart.total() == Decimal("12.90")
    assert cart.total(discount_pct=10) == Decimal("11.61")
    cart.remove("pad")
    assert cart.total() == Decimal("9.00")


def test_invoice(no_warnings):
    inv = {
        "number": "INV-9",
        "lines": [{"price": "10", "qty": 2}, {"price": "0.99", "qty": 3}],
        "discount_pct": 5,
        "tax_rate": "0.1",
    }
    assert invoice_total(inv) == Decimal("24.00")
    assert invoice_summary(inv) == "Invoice INV-9: 5 item(s), total 24.00"


def test_quotes(no_warnings):
    lines = [("100", 1), ("40", 2)]
    assert quote(lines) == Decimal("180.00")
    assert quote(lines, "silver") == Decimal("171.00")
    assert quote(lines, "gold", tax_rate="0.2") == Decimal("194.40")
    with pytest.raises(ValueError):
        quote(lines, "platinum")


def test_subscriptions(no_warnings):
    assert monthly_charge("9.99", 3) == Decimal("29.97")
    assert monthly_charge("9.99", 3, tax_rate="0.2") == Decimal("35.96")
    assert annual_charge("10", 1) == Decimal("102.00")
    assert annual_charge("9.99", 2, tax_rate="0.2") == Decimal("244.56")


def test_refunds(no_warnings):
    original = [("50", 2), ("5", 1)]
    assert refund_amount(original, [("50", 1)], 10, "0.2") == Decimal("54.00")
    assert refund_amount(original, [("50", 5)], 10, "0.2") == Decimal("113.40")


def test_report(no_warnings):
    orders = [
        {"customer": "zed", "lines": [("10", 1)], "tax_rate": "0.2"},
        {"customer": "amy", "lines": [("3.33", 3)]},
        {"customer": "zed", "lines": [("1", 5)], "discount_pct": 50},
    ]
    report = revenue_report(orders)
    assert list(report) == ["amy", "zed"]
    assert report == {"amy": Decimal("9.99"), "zed": Decimal("14.50")}
