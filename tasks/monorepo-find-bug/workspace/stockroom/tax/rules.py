"""Where a sale is taxed.

We are a German company shipping from Germany (and from our Rotterdam warehouse, which for VAT
purposes is treated as a German call-off stock; see the tax adviser's memo of 2021-06-30).

- Consumers in the EU: since the 2021 e-commerce package we are above the EUR 10,000 threshold,
  so every B2C distance sale is taxed in the destination country at its rates, declared through
  the One-Stop-Shop (OSS). Domestic B2C sales are simply German VAT.
- Businesses in another EU country with a valid VAT id of that country: intra-community supply,
  no VAT charged, the customer accounts for it (reverse charge). The line prices are then net.
- Businesses in Germany, or without a valid VAT id: treated like consumers.
- Outside the EU (CH, GB, NO): exports, no VAT charged.
"""
from ..config import EU_COUNTRIES, EXPORT_COUNTRIES, HOME_COUNTRY


def is_export(country):
    return country in EXPORT_COUNTRIES


def is_eu(country):
    return country in EU_COUNTRIES


def is_reverse_charge(order, customer):
    """Whether ``order`` is an intra-community B2B supply without VAT."""
    from .engine import region_for  # local import: engine imports this module

    country = order.ship_country
    if not customer.is_business or not customer.has_vat_id:
        return False
    if not is_eu(country) or country == HOME_COUNTRY:
        return False
    if customer.vat_id_country != country:
        return False
    return region_for(country).validate_vat_id(customer.vat_id)


def supply_country(order, customer):
    """The country whose VAT applies, or None when no VAT is charged."""
    if is_export(order.ship_country) or is_reverse_charge(order, customer):
        return None
    return order.ship_country


def oss_country(order, customer):
    """The country an OSS declaration lists the sale under, or None if it is not an OSS sale."""
    country = supply_country(order, customer)
    if country is None or country == HOME_COUNTRY:
        return None
    return country


def treatment(order, customer):
    """A short label for reports: ``domestic``, ``oss``, ``reverse_charge`` or ``export``."""
    if is_export(order.ship_country):
        return "export"
    if is_reverse_charge(order, customer):
        return "reverse_charge"
    if order.ship_country == HOME_COUNTRY:
        return "domestic"
    return "oss"


TREATMENT_LABELS = {
    "domestic": "Domestic (DE VAT)",
    "oss": "EU distance sales (OSS)",
    "reverse_charge": "Intra-community B2B (reverse charge)",
    "export": "Exports (no VAT)",
}
