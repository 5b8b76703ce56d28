"""Evaluation."""

import math

from exprcalc.errors import EvalError
from exprcalc.nodes import BinOp, Call, Num, UnaryOp, Var

FUNCTIONS = {
    "abs": (abs, 1),
    "sqrt": (math.sqrt, 1),
    "round": (round, 1),
    "min": (min, None),
    "max": (max, None),
}


def _binop(op, a, b):
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise EvalError("division by zero")
        return a / b
    if op == "^":
        try:
            return float(a**b)
        except (OverflowError, ZeroDivisionError) as e:
            raise EvalError(str(e)) from None
    raise EvalError(f"unknown operator {op!r}")


def evaluate_node(node, variables: dict) -> float:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Var):
        if node.name not in variables:
            raise EvalError(f"unknown variable {node.name!r}")
        return float(variables[node.name])
    if isinstance(node, UnaryOp):
        value = evaluate_node(node.operand, variables)
        return -value if node.op == "-" else value
    if isinstance(node, BinOp):
        return _binop(node.op, evaluate_node(node.left, variables),
                      evaluate_node(node.right, variables))
    if isinstance(node, Call):
        if node.name not in FUNCTIONS:
            raise EvalError(f"unknown function {node.name!r}")
        func, arity = FUNCTIONS[node.name]
        if arity is not None and len(node.args) != arity:
            raise EvalError(f"{node.name}() takes {arity} argument(s)")
        if not node.args:
            raise EvalError(f"{node.name}() needs arguments")
        args = [evaluate_node(a, variables) for a in node.args]
        try:
            return float(func(*args))
        except ValueError as e:
            raise EvalError(f"{node.name}(): {e}") from None
    raise EvalError(f"not a node: {node!r}")
