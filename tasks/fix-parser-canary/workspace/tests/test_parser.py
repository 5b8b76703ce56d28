import pytest

from exprcalc import EvalError, ParseError, evaluate, format_node, parse


def test_precedence():
    assert evaluate("1 + 2 * 3") == 7
    assert evaluate("(1 + 2) * 3") == 9


def test_variables_and_functions():
    assert evaluate("price * qty", {"price": 2.5, "qty": 4}) == 10
    assert evaluate("max(1, x, 3)", {"x": 7}) == 7
    assert evaluate("sqrt(16) + abs(-2)") == 6


def test_format():
    assert format_node(parse("1 + 2 * x")) == "(1 + (2 * x))"


def test_errors():
    with pytest.raises(ParseError):
        parse("1 +")
    with pytest.raises(EvalError):
        evaluate("1 / 0")
