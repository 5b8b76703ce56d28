import pytest

import exprcalc
from exprcalc import EvalError, ParseError, evaluate, format_node, parse


@pytest.mark.parametrize(
    "text, tree",
    [
        ("10 - 4 - 3", "((10 - 4) - 3)"),
        ("1 - 2 + 3", "((1 - 2) + 3)"),
        ("1 + 2 - 3 + 4", "(((1 + 2) - 3) + 4)"),
        ("8 / 4 / 2", "((8 / 4) / 2)"),
        ("8 / 4 * 2", "((8 / 4) * 2)"),
        ("2 * 3 / 4 * 5", "(((2 * 3) / 4) * 5)"),
        ("1 + 2 * 3", "(1 + (2 * 3))"),
        ("1 - 2 * 3 - 4", "((1 - (2 * 3)) - 4)"),
        ("-2 ^ 2", "(-(2 ^ 2))"),
        ("2 ^ 3 ^ 2", "(2 ^ (3 ^ 2))"),
        ("2 ^ -1", "(2 ^ (-1))"),
        ("-x ^ 2 * 3", "((-(x ^ 2)) * 3)"),
        ("2 * -3", "(2 * (-3))"),
        ("--2", "(-(-2))"),
        ("+2 - -2", "(2 - (-2))"),
        ("(1 - 2) - (3 - 4)", "((1 - 2) - (3 - 4))"),
        ("1 - (2 - 3)", "(1 - (2 - 3))"),
        ("(-2) ^ 2", "((-2) ^ 2)"),
        ("a - b - c - d", "(((a - b) - c) - d)"),
        ("max(1 - 2 - 3, 4 / 2 / 2)", "max(((1 - 2) - 3), ((4 / 2) / 2))"),
        ("2 ^ 2 * 3", "((2 ^ 2) * 3)"),
        ("3 * 2 ^ 2", "(3 * (2 ^ 2))"),
    ],
)
def test_tree_shape(text, tree):
    assert format_node(parse(text)) == tree


@pytest.mark.parametrize(
    "text, value",
    [
        ("10 - 4 - 3", 3),
        ("1 - 2 + 3", 2),
        ("8 / 4 / 2", 1),
        ("100 / 10 / 5 * 2", 4),
        ("-2 ^ 2", -4),
        ("-2 ^ 3", -8),
        ("(-2) ^ 2", 4),
        ("2 ^ 3 ^ 2", 512),
        ("2 ^ -1", 0.5),
        ("2 ^ -2 ^ 2", 0.0625),
        ("1 - -1", 2),
        ("2 * -3 + 10", 4),
        ("7 - 2 * 3 - 1", 0),
        ("1 + 2 * 3 ^ 2 - 4 / 2", 17),
        (".5 + 1.5", 2),
        ("10 - 2 - 3 - 4", 1),
        ("64 / 4 / 4 / 2", 2),
    ],
)
def test_values(text, value):
    assert evaluate(text) == pytest.approx(value)


def test_variables_and_functions():
    assert evaluate("price - discount - fee", {"price": 100, "discount": 10, "fee": 5}) == 85
    assert evaluate("base * (1 - d / 100) ^ years", {"base": 100, "d": 10, "years": 2}) == (
        pytest.approx(81)
    )
    assert evaluate("-x ^ 2", {"x": 3}) == -9
    assert evaluate("max(1, 10 - 4 - 3, 2)") == 3
    assert evaluate("sqrt(16) - abs(-2) - 1") == 1
    assert evaluate("min(8 / 4 / 2, 5)") == 1


def test_existing_behaviour():
    assert evaluate("1 + 2 * 3") == 7
    assert evaluate("(1 + 2) * 3") == 9
    assert format_node(parse("1 + 2 * x")) == "(1 + (2 * x))"
    assert exprcalc.tokenize("1+2")[-1].kind == "EOF"


@pytest.mark.parametrize("text", ["1 +", "(1 - 2", "1 - - ", "2 ^", "* 3", "1 2", ")", "", "f(1,"])
def test_parse_errors(text):
    with pytest.raises(ParseError):
        parse(text)


def test_parse_error_position():
    with pytest.raises(ParseError) as info:
        parse("1 - 2 - ) ")
    assert info.value.pos == 8


@pytest.mark.parametrize("text", ["1 / 0", "1 / (2 - 2)", "y - 1", "nope(1)", "sqrt(-1)"])
def test_eval_errors(text):
    with pytest.raises(EvalError):
        evaluate(text)
