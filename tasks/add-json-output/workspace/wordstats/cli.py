"""Command line: python -m wordstats [--top N] [--min-length N] PATH..."""

import argparse
import sys

from wordstats import __version__
from wordstats.analyze import analyze_text, summarize, top_words
from wordstats.report import render_text
from wordstats.sources import SourceError, read_source


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wordstats",
        description="Count lines, words and characters, and list the most frequent words.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files to read ('-' for stdin)")
    parser.add_argument("--top", type=_non_negative, default=5, metavar="N",
                        help="how many frequent words to list (default 5)")
    parser.add_argument("--min-length", type=_non_negative, default=1, metavar="N",
                        help="ignore shorter words in the frequent-word list (default 1)")
    parser.add_argument("--version", action="version", version=f"wordstats {__version__}")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    stats = []
    for path in args.paths:
        try:
            stats.append(analyze_text(path, read_source(path)))
        except SourceError as e:
            print(f"wordstats: {e}", file=sys.stderr)
            return 1
    summary = summarize(stats)
    top = top_words(summary.word_counts, args.top, args.min_length)
    sys.stdout.write(render_text(summary, top))
    return 0
