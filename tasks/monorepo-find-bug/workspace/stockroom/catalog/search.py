"""A small product search used by the back-office tools.

Matches every word of the query against the SKU, name and category (case-insensitive), ranks exact
SKU matches first, then name prefix matches, then the rest by name.
"""
import re

_WORD = re.compile(r"[\w-]+", re.UNICODE)


def _words(text):
    return [word.lower() for word in _WORD.findall(text)]


def matches(product, query_words):
    haystack = " ".join([product.sku.lower(), product.name.lower(), product.category.lower()])
    return all(word in haystack for word in query_words)


def rank(product, query):
    query = query.strip().lower()
    if product.sku.lower() == query:
        return 0
    if product.name.lower().startswith(query):
        return 1
    return 2


def search(products, query, include_inactive=False, limit=20):
    """Products matching ``query``, best first."""
    words = _words(query)
    if not words:
        return []
    found = [
        product
        for product in products
        if (include_inactive or product.active) and matches(product, words)
    ]
    found.sort(key=lambda product: (rank(product, query), product.name.lower(), product.sku))
    return found[:limit]


def suggest_skus(products, prefix, limit=10):
    """SKUs starting with ``prefix`` (for autocompletion)."""
    prefix = prefix.strip().upper()
    return sorted(product.sku for product in products if product.sku.startswith(prefix))[:limit]


def similar(products, product, limit=5):
    """Other active products in the same category, closest in price first."""
    candidates = [
        other
        for other in products
        if other.sku != product.sku and other.active and other.category == product.category
    ]
    candidates.sort(key=lambda other: (abs(other.list_price - product.list_price), other.sku))
    return candidates[:limit]
