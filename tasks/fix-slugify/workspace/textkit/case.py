"""Identifier case conversion."""

import re

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+")


def _words(text: str) -> list:
    return [w for w in _BOUNDARY.split(text) if w]


def snake_case(text: str) -> str:
    """'HelloWorld' -> 'hello_world', 'hello-world' -> 'hello_world'."""
    return "_".join(w.lower() for w in _words(text))


def camel_case(text: str) -> str:
    """'hello_world' -> 'helloWorld'."""
    words = _words(text)
    if not words:
        return ""
    first, rest = words[0].lower(), words[1:]
    return first + "".join(w[:1].upper() + w[1:].lower() for w in rest)
