"""CSV writing."""

from csvlite.dialect import validate_dialect


def _quote(field: str, delimiter: str, quotechar: str) -> str:
    if any(ch in field for ch in (delimiter, quotechar, "\r", "\n")):
        return quotechar + field.replace(quotechar, quotechar * 2) + quotechar
    return field


def format_row(fields, delimiter: str = ",", quotechar: str = '"') -> str:
    """One record as a CSV line (without the line break)."""
    validate_dialect(delimiter, quotechar)
    fields = [str(f) for f in fields]
    if fields == [""]:
        return quotechar * 2  # a lone empty field must not look like a blank line
    return delimiter.join(_quote(f, delimiter, quotechar) for f in fields)


def write_rows(rows, delimiter: str = ",", quotechar: str = '"') -> str:
    """Records as CSV text, each line ended by a newline."""
    return "".join(format_row(row, delimiter, quotechar) + "\n" for row in rows)
