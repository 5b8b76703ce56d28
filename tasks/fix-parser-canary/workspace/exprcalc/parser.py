"""Recursive-descent parser.

Precedence, loosest first: + and - ; * and / ; unary minus and plus ; ^ (power).
+, -, * and / associate to the left; ^ associates to the right, and it binds tighter than
unary minus: -2^2 is -(2^2).
"""

from exprcalc.errors import ParseError
from exprcalc.nodes import BinOp, Call, Num, UnaryOp, Var
from exprcalc.tokens import tokenize


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def advance(self):
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def at_op(self, ops) -> bool:
        tok = self.peek()
        return tok.kind == "OP" and tok.value in ops

    def expect_op(self, op):
        tok = self.peek()
        if not (tok.kind == "OP" and tok.value == op):
            raise ParseError(f"expected {op!r}", tok.pos)
        return self.advance()

    def expr(self):
        left = self.term()
        if self.at_op("+-"):
            op = self.advance().value
            return BinOp(op, left, self.expr())
        return left

    def term(self):
        left = self.power()
        if self.at_op("*/"):
            op = self.advance().value
            return BinOp(op, left, self.term())
        return left

    def power(self):
        base = self.unary()
        if self.at_op("^"):
            self.advance()
            return BinOp("^", base, self.power())
        return base

    def unary(self):
        if self.at_op("-"):
            self.advance()
            return UnaryOp("-", self.unary())
        if self.at_op("+"):
            self.advance()
            return self.unary()
        return self.atom()

    def atom(self):
        tok = self.peek()
        if tok.kind == "NUM":
            self.advance()
            return Num(float(tok.value))
        if tok.kind == "NAME":
            self.advance()
            if self.at_op("("):
                return Call(tok.value, self.arguments())
            return Var(tok.value)
        if self.at_op("("):
            self.advance()
            node = self.expr()
            self.expect_op(")")
            return node
        what = "end of input" if tok.kind == "EOF" else repr(tok.value)
        raise ParseError(f"unexpected {what}", tok.pos)

    def arguments(self) -> tuple:
        self.expect_op("(")
        args = []
        if not self.at_op(")"):
            args.append(self.expr())
            while self.at_op(","):
                self.advance()
                args.append(self.expr())
        self.expect_op(")")
        return tuple(args)


def parse(text: str):
    """Parse ``text`` into a syntax tree (see exprcalc.nodes)."""
    parser = _Parser(tokenize(text))
    node = parser.expr()
    tok = parser.peek()
    if tok.kind != "EOF":
        raise ParseError(f"unexpected {tok.value!r}", tok.pos)
    return node
