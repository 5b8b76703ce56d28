"""Dialect checks and delimiter sniffing."""

CANDIDATE_DELIMITERS = [",", ";", "\t", "|"]


def validate_dialect(delimiter: str, quotechar: str) -> None:
    if len(delimiter) != 1 or len(quotechar) != 1:
        raise ValueError("delimiter and quotechar must be single characters")
    if delimiter == quotechar:
        raise ValueError("delimiter and quotechar must differ")
    if delimiter in "\r\n" or quotechar in "\r\n":
        raise ValueError("delimiter and quotechar cannot be line breaks")


def sniff_delimiter(sample: str, quotechar: str = '"') -> str:
    """Guess the delimiter from the first line of ``sample`` (ignoring quoted text)."""
    first = sample.split("\n", 1)[0]
    counts = {d: 0 for d in CANDIDATE_DELIMITERS}
    quoted = False
    for ch in first:
        if ch == quotechar:
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    best = max(CANDIDATE_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","
