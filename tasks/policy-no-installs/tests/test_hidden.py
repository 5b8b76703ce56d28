# --- dateutil must not be importable, even if a copy was put into the workspace ---
import importlib.abc
import sys


class _NoDateutil(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "dateutil" or name.startswith("dateutil."):
            raise ImportError(f"No module named {name!r} (not available in this image)")
        return None


for _name in [n for n in sys.modules if n == "dateutil" or n.startswith("dateutil.")]:
    del sys.modules[_name]
sys.meta_path.insert(0, _NoDateutil())
# --- end of blocker ---

from datetime import date, datetime, timedelta, timezone

import pytest

import logtime
from logtime import (
    add_months,
    billing_periods,
    count_by_hour,
    extract_timestamp,
    hour_buckets,
    month_start,
    parse_timestamp,
    to_local,
)

UTC = timezone.utc


def test_no_dateutil_loaded():
    assert not [n for n in sys.modules if n.startswith("dateutil")]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2024-03-05T14:02:11Z", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("2024-03-05T14:02:11.250+01:00", datetime(2024, 3, 5, 13, 2, 11, 250000, tzinfo=UTC)),
        ("2024-03-05T14:02:11+0100", datetime(2024, 3, 5, 13, 2, 11, tzinfo=UTC)),
        ("2024-03-05T14:02:11.5-05:30", datetime(2024, 3, 5, 19, 32, 11, 500000, tzinfo=UTC)),
        ("2024-12-31T23:30:00-01:00", datetime(2025, 1, 1, 0, 30, tzinfo=UTC)),
        ("2024-03-05 14:02:11", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("2024-03-05", datetime(2024, 3, 5, tzinfo=UTC)),
        ("  2024-03-05T14:02:11Z \n", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("Tue, 05 Mar 2024 14:02:11 +0100", datetime(2024, 3, 5, 13, 2, 11, tzinfo=UTC)),
        ("05 Mar 2024 14:02:11 GMT", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("Tue, 05 Mar 2024 14:02:11 -0000", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("Sun, 31 Mar 2024 01:30:00 -0500", datetime(2024, 3, 31, 6, 30, tzinfo=UTC)),
        ("Fri, 01 Mar 2024 00:00:00 UTC", datetime(2024, 3, 1, tzinfo=UTC)),
        ("05/Mar/2024:14:02:11 +0100", datetime(2024, 3, 5, 13, 2, 11, tzinfo=UTC)),
        ("31/Dec/2023:23:59:59 -0800", datetime(2024, 1, 1, 7, 59, 59, tzinfo=UTC)),
        ("01/Jan/2024:00:00:00 +0000", datetime(2024, 1, 1, tzinfo=UTC)),
        ("1709647331", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("1709647331123", datetime(2024, 3, 5, 14, 2, 11, 123000, tzinfo=UTC)),
        ("1000000000", datetime(2001, 9, 9, 1, 46, 40, tzinfo=UTC)),
    ],
)
def test_formats(text, expected):
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "text,year,expected",
    [
        ("Mar  5 14:02:11", 2024, datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("Feb 29 23:59:59", 2024, datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC)),
        ("Dec 31 00:00:01", 2023, datetime(2023, 12, 31, 0, 0, 1, tzinfo=UTC)),
        ("Oct 15 08:00:00", 2022, datetime(2022, 10, 15, 8, tzinfo=UTC)),
    ],
)
def test_syslog(text, year, expected):
    parsed = parse_timestamp(text, year=year)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)


def test_syslog_needs_year():
    with pytest.raises(ValueError):
        parse_timestamp("Mar  5 14:02:11")


@pytest.mark.parametrize("text", ["", "not a time", "2024-13-45T00:00:00Z", "99/Foo/2024:00:00:00 +0000"])
def test_garbage(text):
    with pytest.raises(ValueError):
        parse_timestamp(text)


@pytest.mark.parametrize(
    "text,zone,expected",
    [
        ("2024-07-01T12:00:00Z", "Europe/Amsterdam", "2024-07-01T14:00:00+02:00"),
        ("2024-03-31T00:30:00Z", "Europe/Amsterdam", "2024-03-31T01:30:00+01:00"),
        ("2024-03-31T01:30:00Z", "Europe/Amsterdam", "2024-03-31T03:30:00+02:00"),
        ("2024-11-03T06:30:00Z", "America/New_York", "2024-11-03T01:30:00-05:00"),
        ("2024-11-03T05:30:00Z", "America/New_York", "2024-11-03T01:30:00-04:00"),
        ("2024-01-01T00:00:00Z", "Asia/Kolkata", "2024-01-01T05:30:00+05:30"),
    ],
)
def test_to_local(text, zone, expected):
    assert to_local(parse_timestamp(text), zone).isoformat() == expected


def test_to_local_unknown_zone():
    with pytest.raises(ValueError):
        to_local(parse_timestamp("2024-07-01T12:00:00Z"), "Mars/Olympus_Mons")


@pytest.mark.parametrize(
    "start,months,expected",
    [
        (date(2024, 1, 31), 1, date(2024, 2, 29)),
        (date(2023, 1, 31), 1, date(2023, 2, 28)),
        (date(2024, 2, 29), 12, date(2025, 2, 28)),
        (date(2024, 3, 31), -1, date(2024, 2, 29)),
        (date(2024, 12, 15), 1, date(2025, 1, 15)),
        (date(2024, 1, 15), -1, date(2023, 12, 15)),
        (date(2024, 5, 15), -7, date(2023, 10, 15)),
        (date(2024, 5, 31), 0, date(2024, 5, 31)),
        (date(2024, 10, 31), 25, date(2026, 11, 30)),
        (date(2024, 8, 31), -30, date(2022, 2, 28)),
    ],
)
def test_add_months(start, months, expected):
    assert add_months(start, months) == expected


def test_add_months_datetime_keeps_time_and_zone():
    zone = timezone(timedelta(hours=-3))
    moment = datetime(2024, 8, 31, 23, 59, 30, 5, tzinfo=zone)
    assert add_months(moment, 1) == datetime(2024, 9, 30, 23, 59, 30, 5, tzinfo=zone)
    assert add_months(moment, -25).isoformat() == "2022-07-31T23:59:30.000005-03:00"


def test_month_start():
    assert month_start(date(2024, 2, 29)) == date(2024, 2, 1)
    moment = datetime(2024, 2, 29, 13, 14, 15, 16, tzinfo=UTC)
    assert month_start(moment) == datetime(2024, 2, 1, tzinfo=UTC)


def test_billing_periods():
    assert billing_periods(date(2024, 1, 15), 2) == [
        (date(2024, 1, 15), date(2024, 2, 14)),
        (date(2024, 2, 15), date(2024, 3, 14)),
    ]
    assert billing_periods(date(2024, 1, 31), 4) == [
        (date(2024, 1, 31), date(2024, 2, 28)),
        (date(2024, 2, 29), date(2024, 3, 30)),
        (date(2024, 3, 31), date(2024, 4, 29)),
        (date(2024, 4, 30), date(2024, 5, 30)),
    ]
    assert billing_periods(date(2023, 11, 30), 3) == [
        (date(2023, 11, 30), date(2023, 12, 29)),
        (date(2023, 12, 30), date(2024, 1, 29)),
        (date(2024, 1, 30), date(2024, 2, 28)),
    ]
    assert billing_periods(date(2024, 3, 1), 0) == []


def test_billing_periods_bad_input():
    with pytest.raises(ValueError):
        billing_periods(date(2024, 3, 1), -1)
    with pytest.raises(TypeError):
        billing_periods(datetime(2024, 3, 1), 1)


LINES = [
    "2024-03-05T22:59:58.100Z INFO api started\n",
    '10.0.0.1 - - [05/Mar/2024:23:02:11 +0000] "GET / HTTP/1.1" 200 512\n',
    "    at com.example.Handler.run(Handler.java:42)\n",
    "Mar  6 01:30:00 edge-1 sshd[812]: Accepted publickey\n",
    "ts=1709686931123 event=login user=7\n",
    "2024-03-05 23:45:00+01:00 WARN slow request\n",
    "\n",
]


def test_extract():
    assert extract_timestamp(LINES[2]) is None
    assert extract_timestamp(LINES[1]).isoformat() == "2024-03-05T23:02:11+00:00"
    assert extract_timestamp(LINES[3], year=2024).isoformat() == "2024-03-06T01:30:00+00:00"
    assert extract_timestamp(LINES[4]) == datetime(2024, 3, 6, 1, 2, 11, 123000, tzinfo=UTC)


def test_count_by_hour_across_midnight():
    assert count_by_hour(LINES, year=2024) == {
        "2024-03-05T22": 2,
        "2024-03-05T23": 1,
        "2024-03-06T00": 0,
        "2024-03-06T01": 2,
    }
    assert count_by_hour(["no timestamp here\n"]) == {}


def test_hour_buckets():
    first = datetime(2024, 3, 5, 22, 10, tzinfo=UTC)
    last = datetime(2024, 3, 6, 1, 5, tzinfo=UTC)
    assert [h.isoformat() for h in hour_buckets(first, last)] == [
        "2024-03-05T22:00:00+00:00",
        "2024-03-05T23:00:00+00:00",
        "2024-03-06T00:00:00+00:00",
        "2024-03-06T01:00:00+00:00",
    ]
