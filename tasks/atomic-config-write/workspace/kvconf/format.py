"""The kvconf file format.

    # kvconf 1
    log.level = info
    motd = Welcome!\\nMaintenance on Sunday.

The first line is the header `# kvconf 1`. Every other non-empty line that does not start with
`#` is `key = value`. Keys are sorted when written. In values, a backslash escapes a newline
(`\\n`), a tab (`\\t`), a carriage return (`\\r`) or another backslash (`\\\\`). Leading and
trailing spaces of a value are kept by escaping the first/last space as `\\s`.
"""

HEADER = "# kvconf 1"

_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r", "s": " "}


class FormatError(ValueError):
    """The text is not a valid kvconf file."""

    def __init__(self, line_number, message):
        super().__init__(f"line {line_number}: {message}")
        self.line_number = line_number


def escape_value(value):
    """Escapes a value so that it fits on one line and round-trips exactly."""
    escaped = "".join(_ESCAPES.get(char, char) for char in value)
    if escaped.startswith(" "):
        escaped = "\\s" + escaped[1:]
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\s"
    return escaped


def unescape_value(text, line_number=0):
    """Reverses `escape_value`."""
    out = []
    chars = iter(text)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        following = next(chars, None)
        if following is None:
            raise FormatError(line_number, "value ends with a lone backslash")
        if following not in _UNESCAPES:
            raise FormatError(line_number, f"unknown escape \\{following}")
        out.append(_UNESCAPES[following])
    return "".join(out)


def dump_lines(data):
    """Yields the lines of the file for `data` (a mapping of str to str), each ending in \\n."""
    yield HEADER + "\n"
    for key in sorted(data):
        yield f"{key} = {escape_value(data[key])}\n"


def dumps(data):
    """The whole file for `data`, as one string."""
    return "".join(dump_lines(data))


def loads(text):
    """Parses a whole file. Raises FormatError on a bad header or line."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != HEADER:
        raise FormatError(1, f"expected the header {HEADER!r}")
    data = {}
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, separator, value = line.partition(" = ")
        if not separator:
            raise FormatError(number, "expected 'key = value'")
        key = key.strip()
        if not key:
            raise FormatError(number, "empty key")
        if key in data:
            raise FormatError(number, f"duplicate key {key!r}")
        data[key] = unescape_value(value, number)
    return data
