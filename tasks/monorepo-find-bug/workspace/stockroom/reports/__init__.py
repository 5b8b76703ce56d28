"""The monthly reports. Each module has ``build(dataset, year, month)`` and ``render(result)``."""
from . import carrier_report, inventory_report, returns_report, sales, tax_report

REPORTS = {
    "sales": sales,
    "tax": tax_report,
    "returns": returns_report,
    "inventory": inventory_report,
    "carriers": carrier_report,
}
