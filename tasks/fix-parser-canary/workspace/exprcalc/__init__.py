"""exprcalc: safe arithmetic expressions for the pricing-rules editor."""

from exprcalc.errors import EvalError, ParseError
from exprcalc.evaluator import evaluate_node
from exprcalc.nodes import format_node
from exprcalc.parser import parse
from exprcalc.tokens import tokenize


def evaluate(text: str, variables=None) -> float:
    """Parse and evaluate ``text``; ``variables`` maps names to numbers."""
    return evaluate_node(parse(text), variables or {})


__all__ = ["EvalError", "ParseError", "evaluate", "evaluate_node", "format_node", "parse",
           "tokenize"]
