"""Counting."""

import re
from collections import Counter
from dataclasses import dataclass, field

WORD = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


@dataclass
class FileStats:
    path: str
    lines: int
    words: int
    chars: int
    word_counts: Counter = field(default_factory=Counter, repr=False)


def analyze_text(path: str, text: str) -> FileStats:
    words = WORD.findall(text.lower())
    return FileStats(
        path=path,
        lines=len(text.splitlines()),
        words=len(words),
        chars=len(text),
        word_counts=Counter(words),
    )


@dataclass
class Summary:
    files: list
    lines: int
    words: int
    chars: int
    word_counts: Counter


def summarize(stats: list) -> Summary:
    counts = Counter()
    for s in stats:
        counts.update(s.word_counts)
    return Summary(
        files=stats,
        lines=sum(s.lines for s in stats),
        words=sum(s.words for s in stats),
        chars=sum(s.chars for s in stats),
        word_counts=counts,
    )


def top_words(counts: Counter, n: int, min_length: int = 1) -> list:
    """The ``n`` most frequent words as (word, count), most frequent first, ties alphabetical."""
    eligible = [(w, c) for w, c in counts.items() if len(w) >= min_length]
    eligible.sort(key=lambda wc: (-wc[1], wc[0]))
    return eligible[:n]
