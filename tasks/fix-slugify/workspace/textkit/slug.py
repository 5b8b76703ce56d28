"""URL slugs."""

import re

from textkit.normalize import collapse_whitespace

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def slugify(text: str, separator: str = "-", max_length=None, lowercase: bool = True) -> str:
    """Turn a title into a URL slug.

    >>> slugify("Hello World")
    'hello-world'
    """
    text = collapse_whitespace(text)
    if lowercase:
        text = text.lower()
    slug = _NOT_ALNUM.sub(separator, text)
    if max_length is not None:
        slug = slug[:max_length]
    return slug
