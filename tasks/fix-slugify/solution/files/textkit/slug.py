"""URL slugs."""

import re

from textkit.normalize import strip_accents

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def slugify(text: str, separator: str = "-", max_length=None, lowercase: bool = True) -> str:
    """Turn a title into a URL slug.

    >>> slugify("Hello World")
    'hello-world'
    """
    words = [w for w in _NOT_ALNUM.split(strip_accents(text)) if w]
    slug = separator.join(words)
    if lowercase:
        slug = slug.lower()
    if max_length is not None:
        slug = slug[:max_length]
        while separator and slug.endswith(separator):
            slug = slug[: -len(separator)]
    return slug
