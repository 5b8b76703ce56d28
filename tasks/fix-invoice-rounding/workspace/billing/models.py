"""Invoice data model."""

from dataclasses import dataclass, field


@dataclass
class LineItem:
    """One line of an invoice.

    ``unit_price`` and ``tax_rate`` may be given as str, int, float or Decimal;
    ``tax_rate`` is a fraction ("0.20" means 20 %).
    """

    description: str
    unit_price: object
    quantity: int = 1
    tax_rate: object = "0"

    def __post_init__(self):
        self.unit_price = float(self.unit_price)
        self.tax_rate = float(self.tax_rate)
        if self.quantity < 0:
            raise ValueError(f"negative quantity on line {self.description!r}")
        if self.tax_rate < 0:
            raise ValueError(f"negative tax rate on line {self.description!r}")


@dataclass
class Invoice:
    number: str
    currency: str = "USD"
    lines: list = field(default_factory=list)

    def add(self, description, unit_price, quantity=1, tax_rate="0") -> LineItem:
        line = LineItem(description, unit_price, quantity, tax_rate)
        self.lines.append(line)
        return line
