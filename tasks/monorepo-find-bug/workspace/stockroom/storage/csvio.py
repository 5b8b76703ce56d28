"""Typed reading of CSV export files.

The exports are UTF-8 CSV with a header row. ``read_rows`` checks the header against the columns a
loader expects and converts each cell with a column converter, raising DataError with the file
and line number on the first bad cell.
"""
import csv
from decimal import Decimal, InvalidOperation

from ..dates import parse_timestamp
from ..errors import DataError


def text(value):
    return value.strip()


def integer(value):
    value = value.strip()
    if not value.lstrip("-").isdigit():
        raise ValueError(f"not an integer: {value!r}")
    return int(value)


def decimal(value):
    try:
        return Decimal(value.strip())
    except InvalidOperation:
        raise ValueError(f"not a decimal: {value!r}") from None


def boolean(value):
    value = value.strip().lower()
    if value in ("1", "true", "yes", "y"):
        return True
    if value in ("0", "false", "no", "n", ""):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def timestamp(value):
    return parse_timestamp(value)


def optional(convert):
    """Wraps a converter so that an empty cell gives None."""

    def converter(value):
        return None if not value.strip() else convert(value)

    converter.__name__ = f"optional_{convert.__name__}"
    return converter


def read_rows(path, columns):
    """Yields one dict per data row of the CSV file at ``path``.

    ``columns`` maps each expected column name to a converter. Extra columns in the file are
    ignored; a missing column is an error.
    """
    try:
        handle = open(path, newline="", encoding="utf-8")
    except FileNotFoundError:
        raise DataError(str(path), 0, "file not found") from None
    with handle:
        reader = csv.DictReader(handle)
        missing = [name for name in columns if name not in (reader.fieldnames or [])]
        if missing:
            raise DataError(str(path), 1, f"missing columns: {', '.join(missing)}")
        for row in reader:
            converted = {}
            for name, convert in columns.items():
                try:
                    converted[name] = convert(row[name] or "")
                except ValueError as error:
                    raise DataError(str(path), reader.line_num, f"{name}: {error}") from None
            yield converted


def read_optional_rows(path, columns):
    """Like read_rows, but a missing file gives no rows."""
    try:
        yield from read_rows(path, columns)
    except DataError as error:
        if error.message != "file not found":
            raise


def write_rows(path, columns, rows):
    """Writes dict rows as CSV with the given column order (used by tests and exports)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        for row in rows:
            writer.writerow({name: _cell(row.get(name)) for name in columns})


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "isoformat"):
        return value.isoformat().replace("+00:00", "Z")
    return str(value)
