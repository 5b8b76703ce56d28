"""logtime: timestamps in service logs."""
from .parse import parse_timestamp, to_local
from .periods import add_months, billing_periods, month_start
from .scan import count_by_hour, extract_timestamp, hour_buckets

__all__ = [
    "add_months",
    "billing_periods",
    "count_by_hour",
    "extract_timestamp",
    "hour_buckets",
    "month_start",
    "parse_timestamp",
    "to_local",
]
