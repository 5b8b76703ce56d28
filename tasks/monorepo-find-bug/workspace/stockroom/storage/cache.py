"""A small cache of loaded datasets, keyed by folder and the files' modification times.

Reports that run several times in one process (the tests, the ``report all`` command) load each
data folder once; a changed export file invalidates the entry.
"""
import os
from pathlib import Path

from .loaders import load_dataset

_FILES = (
    "products.csv",
    "customers.csv",
    "orders.csv",
    "order_lines.csv",
    "refunds.csv",
    "shipments.csv",
    "stock_movements.csv",
    "fx_rates.csv",
    "discount_codes.csv",
)

_cache = {}


def _fingerprint(data_dir):
    stamps = []
    for name in _FILES:
        try:
            info = os.stat(data_dir / name)
        except FileNotFoundError:
            stamps.append((name, None))
        else:
            stamps.append((name, info.st_mtime_ns, info.st_size))
    return tuple(stamps)


def dataset(data_dir):
    """The dataset in ``data_dir``, loaded at most once per version of its files."""
    data_dir = Path(data_dir).resolve()
    fingerprint = _fingerprint(data_dir)
    entry = _cache.get(data_dir)
    if entry is not None and entry[0] == fingerprint:
        return entry[1]
    loaded = load_dataset(data_dir)
    _cache[data_dir] = (fingerprint, loaded)
    return loaded


def clear():
    """Forgets every cached dataset."""
    _cache.clear()


def cached_folders():
    return sorted(str(path) for path in _cache)
