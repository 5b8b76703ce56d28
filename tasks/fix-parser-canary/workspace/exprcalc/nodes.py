"""Syntax tree."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class UnaryOp:
    op: str
    operand: object


@dataclass(frozen=True)
class BinOp:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple


def format_node(node) -> str:
    """Fully parenthesised form, handy for checking precedence: '((1 - 2) - 3)'."""
    if isinstance(node, Num):
        return f"{node.value:g}"
    if isinstance(node, Var):
        return node.name
    if isinstance(node, UnaryOp):
        return f"({node.op}{format_node(node.operand)})"
    if isinstance(node, BinOp):
        return f"({format_node(node.left)} {node.op} {format_node(node.right)})"
    if isinstance(node, Call):
        return f"{node.name}(" + ", ".join(format_node(a) for a in node.args) + ")"
    raise TypeError(f"not a node: {node!r}")
