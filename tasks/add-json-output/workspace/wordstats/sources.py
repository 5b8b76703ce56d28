"""Reading inputs."""

import sys


class SourceError(Exception):
    pass


def read_source(path: str) -> str:
    """Text of ``path``; ``-`` means standard input."""
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise SourceError(f"cannot read {path!r}: {e.strerror}") from None
