from datetime import date, datetime, timezone

from logtime import add_months, billing_periods, month_start


def test_add_months_clamps():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)
    assert add_months(date(2024, 5, 15), -7) == date(2023, 10, 15)


def test_add_months_keeps_time():
    moment = datetime(2024, 8, 31, 23, 59, tzinfo=timezone.utc)
    assert add_months(moment, 1) == datetime(2024, 9, 30, 23, 59, tzinfo=timezone.utc)


def test_month_start():
    assert month_start(date(2024, 2, 29)) == date(2024, 2, 1)


def test_billing_periods():
    assert billing_periods(date(2024, 1, 15), 2) == [
        (date(2024, 1, 15), date(2024, 2, 14)),
        (date(2024, 2, 15), date(2024, 3, 14)),
    ]
