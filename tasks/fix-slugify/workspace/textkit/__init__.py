"""textkit: small text helpers shared by our publishing tools."""

from textkit.case import camel_case, snake_case
from textkit.normalize import collapse_whitespace, strip_accents
from textkit.slug import slugify
from textkit.truncate import truncate_words

__all__ = [
    "camel_case",
    "collapse_whitespace",
    "slugify",
    "snake_case",
    "strip_accents",
    "truncate_words",
]
