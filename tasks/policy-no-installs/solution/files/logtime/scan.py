"""Finding timestamps in log lines and counting lines per hour."""
import re
from datetime import timedelta

from .parse import parse_timestamp

# Where each of our log formats keeps its timestamp, tried in order.
_LINE_PATTERNS = [
    # app logs: 2024-03-05T14:02:11.250Z INFO ...
    re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)\s"),
    # nginx: 10.0.0.1 - - [05/Mar/2024:14:02:11 +0100] "GET / HTTP/1.1" 200 ...
    re.compile(r"\[(\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\]"),
    # syslog: Mar  5 14:02:11 host sshd[123]: ...
    re.compile(r"^([A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2})\s"),
    # audit export: ts=1709647331 event=...
    re.compile(r"\bts=(\d{10}(?:\d{3})?)\b"),
]


def extract_timestamp(line, *, year=None):
    """The UTC timestamp of a log line, or None if the line has none we know."""
    for pattern in _LINE_PATTERNS:
        match = pattern.search(line)
        if match:
            try:
                return parse_timestamp(match.group(1), year=year)
            except ValueError:
                return None
    return None


def _hour(moment):
    return moment.replace(minute=0, second=0, microsecond=0)


def hour_buckets(first, last):
    """Every hour from `first`'s hour to `last`'s hour, inclusive (aware datetimes)."""
    hour, end = _hour(first), _hour(last)
    hours = []
    while hour <= end:
        hours.append(hour)
        hour += timedelta(hours=1)
    return hours


def count_by_hour(lines, *, year=None):
    """Counts lines per UTC hour, as {"2024-03-05T14": 12, ...}.

    Hours between the first and the last timestamp with no lines appear with 0. Lines without a
    timestamp are ignored. An input without any timestamp gives {}.
    """
    counts = {}
    for line in lines:
        moment = extract_timestamp(line, year=year)
        if moment is not None:
            key = _hour(moment)
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return {}
    return {
        hour.strftime("%Y-%m-%dT%H"): counts.get(hour, 0)
        for hour in hour_buckets(min(counts), max(counts))
    }
