"""Truncation helpers."""

from textkit.normalize import collapse_whitespace

ELLIPSIS = "…"


def truncate_words(text: str, n: int, ellipsis: str = ELLIPSIS) -> str:
    """Keep the first ``n`` words of ``text``; add ``ellipsis`` if anything was cut."""
    if n < 0:
        raise ValueError("n must be >= 0")
    words = collapse_whitespace(text).split(" ")
    words = [w for w in words if w]
    if len(words) <= n:
        return " ".join(words)
    return " ".join(words[:n]) + ellipsis
