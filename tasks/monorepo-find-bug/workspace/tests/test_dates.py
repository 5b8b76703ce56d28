from datetime import date, datetime, timezone

import pytest

from stockroom.dates import business_days_after, in_month, month_bounds, parse_month, parse_timestamp


def test_month_bounds_december():
    start, end = month_bounds(2024, 12)
    assert start == datetime(2024, 12, 1, tzinfo=timezone.utc)
    assert end == datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_in_month_edges():
    assert in_month(parse_timestamp("2024-03-31T23:59:59Z"), 2024, 3)
    assert not in_month(parse_timestamp("2024-04-01T00:00:00Z"), 2024, 3)
    assert in_month(parse_timestamp("2024-03-01T00:00:00Z"), 2024, 3)


def test_parse_month():
    assert parse_month("2024-03") == (2024, 3)
    with pytest.raises(ValueError):
        parse_month("2024-13")


def test_business_days():
    assert business_days_after(date(2024, 3, 29), 1) == date(2024, 4, 1)
