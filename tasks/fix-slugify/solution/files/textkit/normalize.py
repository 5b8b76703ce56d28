"""Normalisation helpers."""

import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")


def collapse_whitespace(text: str) -> str:
    """Squeeze every run of whitespace into a single space and trim the ends."""
    return _WHITESPACE.sub(" ", text).strip()


def strip_accents(text: str) -> str:
    """Remove accents from letters, leaving every other character alone.

    >>> strip_accents("Crème")
    'Creme'
    """
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
