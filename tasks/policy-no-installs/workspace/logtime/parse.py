"""Parsing the timestamps found in our logs.

`parse_timestamp` accepts:

- ISO 8601, as our services write it: `2024-03-05T14:02:11Z`, `2024-03-05T14:02:11.250+01:00`,
  `2024-03-05T14:02:11+0100`, `2024-03-05 14:02:11` (no offset: UTC), `2024-03-05` (midnight UTC)
- RFC 2822, as mail and HTTP headers write it: `Tue, 05 Mar 2024 14:02:11 +0100`,
  `05 Mar 2024 14:02:11 GMT` (the weekday is optional; `-0000` and `GMT`/`UT`/`UTC` mean UTC)
- the nginx/Apache access log format: `05/Mar/2024:14:02:11 +0100`
- syslog (RFC 3164): `Mar  5 14:02:11`; it has no year, so the caller must pass `year=`;
  the time is taken as UTC
- Unix time: 10 digits for seconds (`1709647331`), 13 digits for milliseconds

Leading and trailing whitespace is ignored. The result is always an aware datetime in UTC.
Anything else raises ValueError.
"""
import re
from datetime import datetime, timezone

from dateutil import parser as dateparser
from dateutil import tz

_EPOCH = re.compile(r"^\d{10}(\d{3})?$")
_SYSLOG = re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}$")
_ACCESS_LOG = re.compile(r"^\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}$")


def parse_timestamp(text, *, year=None):
    """Parses one timestamp (see the module docstring) into an aware UTC datetime."""
    text = text.strip()
    if _EPOCH.match(text):
        if len(text) == 13:
            return datetime.fromtimestamp(int(text) / 1000, tz=timezone.utc)
        return datetime.fromtimestamp(int(text), tz=timezone.utc)
    if _SYSLOG.match(text):
        if year is None:
            raise ValueError(f"syslog timestamp {text!r} has no year: pass year=")
        parsed = dateparser.parse(f"{text} {year}")
        return parsed.replace(tzinfo=timezone.utc)
    if _ACCESS_LOG.match(text):
        # dateutil wants a space between the date and the time
        text = text.replace(":", " ", 1)
    try:
        parsed = dateparser.parse(text)
    except (dateparser.ParserError, OverflowError) as error:
        raise ValueError(f"unrecognised timestamp {text!r}") from error
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def to_local(moment, zone):
    """`moment` (an aware datetime) in the IANA time zone `zone`, e.g. "Europe/Amsterdam".

    Raises ValueError for an unknown zone.
    """
    tzinfo = tz.gettz(zone)
    if tzinfo is None:
        raise ValueError(f"unknown time zone {zone!r}")
    return moment.astimezone(tzinfo)
