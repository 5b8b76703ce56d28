"""Carrier modules: one per carrier we have a contract with.

Every module exposes ``CODE``, ``NAME``, ``SERVICES``, ``serves``, ``zone``, ``quote``,
``transit_days``, ``valid_tracking``, ``tracking_url`` and ``label_fields``.
"""
from . import colissimo, dhl, dpd, gls, postnl, ups

CARRIERS = {module.CODE: module for module in (dhl, ups, dpd, gls, postnl, colissimo)}
