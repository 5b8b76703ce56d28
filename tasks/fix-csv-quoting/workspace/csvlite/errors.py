class CSVError(ValueError):
    """Malformed CSV input. ``line`` is the 1-based line where the problem starts, if known."""

    def __init__(self, message: str, line=None):
        if line is not None:
            message = f"line {line}: {message}"
        super().__init__(message)
        self.line = line
