from datetime import datetime, timedelta, timezone

import pytest

from logtime import parse_timestamp, to_local

UTC = timezone.utc


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2024-03-05T14:02:11Z", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("2024-03-05T14:02:11.250+01:00", datetime(2024, 3, 5, 13, 2, 11, 250000, tzinfo=UTC)),
        ("2024-03-05 14:02:11", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
        ("Tue, 05 Mar 2024 14:02:11 +0100", datetime(2024, 3, 5, 13, 2, 11, tzinfo=UTC)),
        ("05/Mar/2024:14:02:11 +0100", datetime(2024, 3, 5, 13, 2, 11, tzinfo=UTC)),
        ("1709647331", datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)),
    ],
)
def test_formats(text, expected):
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)


def test_syslog_needs_year():
    assert parse_timestamp("Mar  5 14:02:11", year=2024) == datetime(2024, 3, 5, 14, 2, 11, tzinfo=UTC)
    with pytest.raises(ValueError):
        parse_timestamp("Mar  5 14:02:11")


def test_garbage():
    with pytest.raises(ValueError):
        parse_timestamp("not a time")


def test_to_local():
    moment = parse_timestamp("2024-07-01T12:00:00Z")
    assert to_local(moment, "Europe/Amsterdam").isoformat() == "2024-07-01T14:00:00+02:00"
