class ParseError(ValueError):
    """The text is not a valid expression. ``pos`` is the 0-based offset of the problem."""

    def __init__(self, message: str, pos: int):
        super().__init__(f"{message} at position {pos}")
        self.pos = pos


class EvalError(ValueError):
    """The expression is valid but cannot be evaluated (unknown name, division by zero...)."""
