"""Settings shared across stockroom.

Everything here is a constant; nothing reads the environment at import time. The CLI passes the
data folder explicitly, and tests build their own settings where they need different values.
"""
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

#: The company's home country: where goods ship from and where B2B sales are domestic.
HOME_COUNTRY = "DE"

#: Every report is in this currency; orders in other currencies are converted (see ``fx``).
BASE_CURRENCY = "EUR"

#: EU member states we ship to. Sales to anywhere else are exports (no VAT charged).
EU_COUNTRIES = frozenset(
    {"AT", "BE", "DE", "DK", "ES", "FI", "FR", "IE", "IT", "LU", "NL", "PL", "PT", "SE"}
)

#: Countries outside the EU we ship to.
EXPORT_COUNTRIES = frozenset({"CH", "GB", "NO"})

#: Order statuses that count as sales in reports.
REVENUE_STATUSES = frozenset({"paid", "shipped", "delivered", "partially_returned", "returned"})

#: Order statuses that never count.
EXCLUDED_STATUSES = frozenset({"pending", "cancelled", "failed", "fraud_hold"})

#: Sales channels and their display names.
CHANNELS = {
    "web": "Webshop",
    "marketplace": "Marketplace",
    "wholesale": "Wholesale",
    "pos": "Trade fair / POS",
}

#: The folder with the CSV exports, relative to the working directory.
DEFAULT_DATA_DIR = Path("data")

#: Number of days after delivery in which a customer may return goods.
RETURN_WINDOW_DAYS = 30

#: Stock below this many days of cover triggers a reorder suggestion.
REORDER_COVER_DAYS = 21

#: Marketplace commission, as a fraction of the gross line amount.
MARKETPLACE_COMMISSION = Decimal("0.12")


@dataclass(frozen=True)
class Settings:
    """Settings a run of a report needs; built by the CLI."""

    data_dir: Path = DEFAULT_DATA_DIR
    base_currency: str = BASE_CURRENCY
    home_country: str = HOME_COUNTRY
    revenue_statuses: frozenset = field(default=REVENUE_STATUSES)

    def path(self, name):
        """The path of one export file, e.g. ``settings.path("orders.csv")``."""
        return Path(self.data_dir) / name
