"""Customers."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Customer:
    """A customer account.

    ``country`` is the billing country. ``vat_id`` is set for business customers that gave one;
    whether it makes an order reverse-charged is decided by ``tax.rules``.
    """

    customer_id: str
    name: str
    country: str
    email: str = ""
    vat_id: str = ""
    is_business: bool = False
    created_on: str = ""
    segment: str = "retail"

    @property
    def has_vat_id(self):
        return bool(self.vat_id.strip())

    @property
    def vat_id_country(self):
        """The country prefix of the VAT id (``"NL"`` for ``NL123456789B01``), or ``""``."""
        vat_id = self.vat_id.strip().upper()
        if len(vat_id) >= 2 and vat_id[:2].isalpha():
            # Greece uses EL in VAT ids but GR as its country code
            return "GR" if vat_id[:2] == "EL" else vat_id[:2]
        return ""

    def display_name(self):
        if self.is_business:
            return f"{self.name} ({self.vat_id or 'no VAT id'})"
        return self.name
