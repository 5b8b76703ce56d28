"""CSV reading."""

from csvlite.dialect import validate_dialect
from csvlite.errors import CSVError


def _split_line(line: str, delimiter: str, quotechar: str) -> list:
    fields = []
    for field in line.split(delimiter):
        if len(field) >= 2 and field[0] == quotechar and field[-1] == quotechar:
            field = field[1:-1]
        fields.append(field)
    return fields


def parse(text: str, delimiter: str = ",", quotechar: str = '"') -> list:
    """Parse CSV ``text`` into a list of records, each a list of field strings."""
    validate_dialect(delimiter, quotechar)
    rows = []
    for line in text.splitlines():
        if not line:
            continue
        rows.append(_split_line(line, delimiter, quotechar))
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
