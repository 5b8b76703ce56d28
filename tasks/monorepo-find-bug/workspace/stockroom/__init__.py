"""stockroom: inventory, order processing and reporting for the Northwind Supplies webshop.

The package is organised in layers:

- ``models``: plain dataclasses for products, customers, orders, refunds, shipments, stock
- ``storage``: loading those models from the CSV exports in ``data/``
- ``catalog``, ``orders``, ``tax``, ``shipping``, ``inventory``, ``channels``: business rules
- ``reports``: the monthly reports finance and operations use (``python -m stockroom report ...``)
"""

__version__ = "3.14.2"
