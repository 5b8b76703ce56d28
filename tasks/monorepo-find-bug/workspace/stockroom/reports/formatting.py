"""Plain-text rendering shared by the reports.

Reports are read in a terminal and pasted into e-mails, so they are fixed-width text: a title, a
block of label/value lines, and tables with right-aligned numbers.
"""
from ..money import format_money

LABEL_WIDTH = 20
VALUE_WIDTH = 15


def title(text, underline="="):
    return [text, underline * len(text), ""]


def value_line(label, value):
    """``"Net sales            22,659.50"``: label left, value right-aligned."""
    if hasattr(value, "quantize"):
        shown = format_money(value)
    else:
        shown = str(value)
    return f"{label:<{LABEL_WIDTH}}{shown:>{VALUE_WIDTH}}"


def negative(amount):
    """Shows a deduction with a minus sign (zero stays 0.00)."""
    return -amount if amount else amount


def table(headers, rows, money_columns=()):
    """A fixed-width table. ``money_columns`` are indexes of Decimal columns to format."""
    shown_rows = []
    for row in rows:
        shown = []
        for index, cell in enumerate(row):
            if index in money_columns and cell is not None:
                shown.append(format_money(cell))
            else:
                shown.append("" if cell is None else str(cell))
        shown_rows.append(shown)
    widths = [len(header) for header in headers]
    for row in shown_rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    lines = ["  " + "  ".join(_align(h, w, i) for i, (h, w) in enumerate(zip(headers, widths)))]
    for row in shown_rows:
        lines.append("  " + "  ".join(_align(cell, widths[i], i) for i, cell in enumerate(row)))
    return lines


def _align(text, width, index):
    return text.ljust(width) if index == 0 else text.rjust(width)


def percent(part, whole):
    """``"12.5 %"``; ``"-"`` when whole is zero."""
    if not whole:
        return "-"
    return f"{part * 100 / whole:.1f} %"


def join(*blocks):
    """Joins blocks of lines with one blank line between them."""
    lines = []
    for block in blocks:
        if not block:
            continue
        if lines:
            lines.append("")
        lines.extend(block)
    return "\n".join(lines) + "\n"
