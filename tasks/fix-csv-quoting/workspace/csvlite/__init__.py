"""csvlite: a tiny dependency-free CSV reader and writer used by the import jobs."""

from csvlite.dialect import sniff_delimiter, validate_dialect
from csvlite.errors import CSVError
from csvlite.reader import parse, read_records
from csvlite.writer import format_row, write_rows

__all__ = [
    "CSVError",
    "format_row",
    "parse",
    "read_records",
    "sniff_delimiter",
    "validate_dialect",
    "write_rows",
]
