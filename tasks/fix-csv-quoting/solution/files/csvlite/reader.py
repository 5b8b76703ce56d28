"""CSV reading."""

from csvlite.dialect import validate_dialect
from csvlite.errors import CSVError


def _at_line_break(text: str, i: int) -> bool:
    return text.startswith("\n", i) or text.startswith("\r\n", i)


def _read_field(text: str, i: int, line: int, delimiter: str, quotechar: str):
    """Read one field starting at ``i``; return (value, next index, current line)."""
    n = len(text)
    if i < n and text[i] == quotechar:
        start_line = line
        i += 1
        buf = []
        while True:
            if i >= n:
                raise CSVError("unterminated quoted field", line=start_line)
            ch = text[i]
            if ch == quotechar:
                if i + 1 < n and text[i + 1] == quotechar:
                    buf.append(quotechar)
                    i += 2
                    continue
                i += 1
                break
            if ch == "\n":
                line += 1
            buf.append(ch)
            i += 1
        if i < n and text[i] != delimiter and not _at_line_break(text, i):
            raise CSVError(f"unexpected {text[i]!r} after closing quote", line=line)
        return "".join(buf), i, line
    start = i
    while i < n and text[i] != delimiter and not _at_line_break(text, i):
        i += 1
    return text[start:i], i, line


def parse(text: str, delimiter: str = ",", quotechar: str = '"') -> list:
    """Parse CSV ``text`` into a list of records, each a list of field strings."""
    validate_dialect(delimiter, quotechar)
    rows = []
    i, n, line = 0, len(text), 1
    while i < n:
        if text.startswith("\n", i) or text.startswith("\r\n", i):  # blank line
            i += 1 if text[i] == "\n" else 2
            line += 1
            continue
        row = []
        while True:
            value, i, line = _read_field(text, i, line, delimiter, quotechar)
            row.append(value)
            if i < n and text[i] == delimiter:
                i += 1
                continue
            break
        if text.startswith("\r\n", i):
            i += 2
            line += 1
        elif text.startswith("\n", i):
            i += 1
            line += 1
        rows.append(row)
    return rows


def read_records(text: str, delimiter: str = ",", quotechar: str = '"') -> list:
    """Parse CSV with a header row into a list of dicts keyed by the header's names."""
    rows = parse(text, delimiter, quotechar)
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    if len(set(header)) != len(header):
        raise CSVError("duplicate column name in header", line=1)
    records = []
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise CSVError(f"expected {len(header)} fields, got {len(row)}", line=number)
        records.append(dict(zip(header, row)))
    return records
