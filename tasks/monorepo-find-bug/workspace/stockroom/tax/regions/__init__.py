"""The tax regions: one module per EU country we ship to.

Each module exposes the same functions: ``rate``, ``net_amount``, ``vat_amount``,
``validate_vat_id``, ``invoice_legend``, ``rate_table`` and ``describe``, plus country-specific
helpers. ``REGIONS`` maps the country code to the module.
"""
from . import at, be, de, dk, es, fi, fr, ie, it, lu, nl, pl, pt, se

REGIONS = {module.COUNTRY: module for module in (at, be, de, dk, es, fi, fr, ie, it, lu, nl, pl, pt, se)}
