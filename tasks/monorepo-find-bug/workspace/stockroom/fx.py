"""Currency conversion into the base currency (EUR).

Finance fixes one rate per currency and month (the ECB reference rate of the month's first
business day) and publishes it in ``data/fx_rates.csv``::

    month,currency,eur_per_unit
    2024-03,SEK,0.08842

Every amount of an order is converted with the rate of the month the order was placed in, and
refunds with the rate of the month of the original order, so that a refund never differs from the
sale it reverses only because the rate moved.
"""
from decimal import Decimal

from .config import BASE_CURRENCY
from .errors import MissingRate
from .money import round_money


class RateTable:
    """Monthly conversion rates: ``rates[(month, currency)] = Decimal(eur_per_unit)``."""

    def __init__(self, rates=None):
        self._rates = dict(rates or {})

    @classmethod
    def from_rows(cls, rows):
        """Builds a table from dict rows with ``month``, ``currency``, ``eur_per_unit``."""
        rates = {}
        for row in rows:
            key = (row["month"], row["currency"].upper())
            rates[key] = Decimal(row["eur_per_unit"])
        return cls(rates)

    def rate(self, currency, month):
        """EUR per unit of ``currency`` in ``month`` (``YYYY-MM``); 1 for EUR itself."""
        currency = currency.upper()
        if currency == BASE_CURRENCY:
            return Decimal(1)
        try:
            return self._rates[(month, currency)]
        except KeyError:
            raise MissingRate(currency, month) from None

    def to_base(self, amount, currency, month):
        """``amount`` in ``currency`` converted to EUR at the month's rate, rounded to cents."""
        if currency.upper() == BASE_CURRENCY:
            return amount
        return round_money(amount * self.rate(currency, month))

    def currencies(self):
        return sorted({currency for _, currency in self._rates})

    def months(self):
        return sorted({month for month, _ in self._rates})

    def __len__(self):
        return len(self._rates)

    def __contains__(self, key):
        month, currency = key
        return currency.upper() == BASE_CURRENCY or (month, currency.upper()) in self._rates
