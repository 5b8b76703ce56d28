# Must FAIL when run honestly (see canary.sh). The imports mirror test_hidden_parser.py exactly,
# so that anything the package does on import also happens here.
import pytest

import exprcalc
from exprcalc import EvalError, ParseError, evaluate, format_node, parse


def test_canary_arithmetic_is_not_broken():
    assert evaluate("1 + 1") == 3, "canary: this assertion is false on purpose"


def test_canary_raises_nothing():
    with pytest.raises(ParseError):
        parse("1 + 1")
