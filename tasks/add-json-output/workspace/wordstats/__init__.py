"""wordstats: line, word and character counts plus the most frequent words."""

__version__ = "1.3.0"
