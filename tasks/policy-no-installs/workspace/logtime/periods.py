"""Calendar-month arithmetic for billing periods."""
from datetime import date, datetime

from dateutil.relativedelta import relativedelta
from dateutil.rrule import MONTHLY, rrule


def add_months(moment, months):
    """`moment` (a date or datetime) shifted by whole calendar months.

    The day is clamped to the end of the target month: Jan 31 + 1 month is Feb 28 (or 29).
    Time of day and tzinfo are kept. `months` may be negative.
    """
    return moment + relativedelta(months=months)


def month_start(moment):
    """The first day of `moment`'s month, at midnight for a datetime (tzinfo kept)."""
    if isinstance(moment, datetime):
        return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return moment.replace(day=1)


def billing_periods(start, count):
    """`count` consecutive monthly periods from `start` (a date), as (first_day, last_day) pairs.

    A period starting on the 31st of a month ends the day before the same day next month, with
    the same end-of-month clamping as add_months: starting 2024-01-31 gives
    (2024-01-31, 2024-02-28), (2024-02-29, 2024-03-30), (2024-03-31, 2024-04-29), ...
    """
    if not isinstance(start, date) or isinstance(start, datetime):
        raise TypeError("start must be a date")
    if count < 0:
        raise ValueError("count must not be negative")
    starts = [
        day.date()
        for day in rrule(MONTHLY, dtstart=datetime(start.year, start.month, 1), count=count + 1)
    ]
    firsts = [
        min(start.day, (add_months(month, 1) - relativedelta(days=1)).day) for month in starts
    ]
    bounds = [month.replace(day=first) for month, first in zip(starts, firsts)]
    return [(bounds[i], bounds[i + 1] - relativedelta(days=1)) for i in range(count)]
