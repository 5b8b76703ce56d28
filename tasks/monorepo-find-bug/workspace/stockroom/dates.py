"""Dates and reporting periods.

Every timestamp in the exports is UTC, written as ISO 8601 (``2024-03-05T14:02:11Z``). Reports are
per calendar month in UTC: an order placed at 2024-03-31T23:30:00Z belongs to March.
"""
import calendar
import re
from datetime import date, datetime, timedelta, timezone

_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def parse_timestamp(text):
    """Parses an export timestamp into an aware UTC datetime."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def parse_date(text):
    """Parses ``YYYY-MM-DD``."""
    return date.fromisoformat(text.strip())


def parse_month(text):
    """Parses ``YYYY-MM`` into (year, month). Raises ValueError otherwise."""
    match = _MONTH.match(text.strip())
    if not match:
        raise ValueError(f"expected a month as YYYY-MM, got {text!r}")
    year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12:
        raise ValueError(f"no month {month} in {text!r}")
    return year, month


def month_key(moment):
    """The ``YYYY-MM`` key of a date or datetime."""
    return f"{moment.year:04d}-{moment.month:02d}"


def month_bounds(year, month):
    """The first instant of the month and the first instant of the next month (UTC)."""
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    if month == 12:
        end = datetime(year + 1, 1, 1, tzinfo=timezone.utc)
    else:
        end = datetime(year, month + 1, 1, tzinfo=timezone.utc)
    return start, end


def in_month(moment, year, month):
    """Whether a UTC datetime (or a date) falls in the given month."""
    if isinstance(moment, datetime):
        start, end = month_bounds(year, month)
        return start <= moment < end
    return moment.year == year and moment.month == month


def days_in_month(year, month):
    return calendar.monthrange(year, month)[1]


def previous_month(year, month):
    return (year - 1, 12) if month == 1 else (year, month - 1)


def next_month(year, month):
    return (year + 1, 1) if month == 12 else (year, month + 1)


def iso_week(moment):
    """``2024-W10`` for a date or datetime."""
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def days_between(first, second):
    """Whole days from ``first`` to ``second`` (dates or datetimes; negative if second is earlier)."""
    if isinstance(first, datetime):
        first = first.date()
    if isinstance(second, datetime):
        second = second.date()
    return (second - first).days


def add_days(day, days):
    return day + timedelta(days=days)


def business_days_after(day, count, holidays=()):
    """The date ``count`` business days (Mon-Fri, not in holidays) after ``day``."""
    current = day
    remaining = count
    while remaining > 0:
        current += timedelta(days=1)
        if current.weekday() < 5 and current not in holidays:
            remaining -= 1
    return current
