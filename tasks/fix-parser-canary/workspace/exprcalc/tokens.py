"""Tokenizer."""

import re
from dataclasses import dataclass

from exprcalc.errors import ParseError

_TOKEN = re.compile(
    r"\s*(?:(?P<NUM>\d+\.\d*|\.\d+|\d+)|(?P<NAME>[A-Za-z_]\w*)|(?P<OP>[-+*/^(),]))"
)


@dataclass(frozen=True)
class Token:
    kind: str  # NUM, NAME, OP or EOF
    value: str
    pos: int


def tokenize(text: str) -> list:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            bad = len(text) - len(text[pos:].lstrip())
            raise ParseError(f"unexpected character {text[bad]!r}", bad)
        kind = m.lastgroup
        tokens.append(Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    tokens.append(Token("EOF", "", len(text)))
    return tokens
