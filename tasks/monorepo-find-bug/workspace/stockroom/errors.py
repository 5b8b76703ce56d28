"""Exceptions raised by stockroom.

All of them derive from ``StockroomError`` so that the CLI can report them without a traceback.
"""


class StockroomError(Exception):
    """Base class for every error stockroom raises on purpose."""


class DataError(StockroomError):
    """An export file is missing, or a row in it is malformed."""

    def __init__(self, file, line, message):
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


class UnknownCountry(StockroomError):
    """A country code with no tax region or carrier zone."""

    def __init__(self, country):
        super().__init__(f"unknown country code {country!r}")
        self.country = country


class UnknownProduct(StockroomError):
    """An order line or stock movement names a SKU that is not in the catalog."""

    def __init__(self, sku):
        super().__init__(f"unknown SKU {sku!r}")
        self.sku = sku


class InvalidOrder(StockroomError):
    """An order breaks a validation rule (see ``orders.validation``)."""

    def __init__(self, order_id, problems):
        listed = "; ".join(problems)
        super().__init__(f"order {order_id} is invalid: {listed}")
        self.order_id = order_id
        self.problems = list(problems)


class InvalidTransition(StockroomError):
    """An order status change that the status machine does not allow."""

    def __init__(self, order_id, current, wanted):
        super().__init__(f"order {order_id}: cannot go from {current!r} to {wanted!r}")
        self.order_id = order_id
        self.current = current
        self.wanted = wanted


class MissingRate(StockroomError):
    """No exchange rate for a currency in a month."""

    def __init__(self, currency, month):
        super().__init__(f"no exchange rate for {currency} in {month}")
        self.currency = currency
        self.month = month


class NoCarrier(StockroomError):
    """No carrier serves a destination with the parcel's weight and size."""
