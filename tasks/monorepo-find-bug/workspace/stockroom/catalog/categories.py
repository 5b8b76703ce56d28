"""The category tree of the shop.

Categories are for navigation and reporting only. The VAT treatment of a product comes from its
``vat_category`` (see ``models.product.VAT_CATEGORIES``), because the same shop category can hold
items taxed differently (a coffee gift box with a mug, for example, is a bundle whose parts are
taxed separately).
"""

CATEGORIES = {
    "office": {"name": "Office supplies", "parent": None},
    "office/paper": {"name": "Paper and notebooks", "parent": "office"},
    "office/writing": {"name": "Pens and markers", "parent": "office"},
    "office/filing": {"name": "Filing and storage", "parent": "office"},
    "office/desk": {"name": "Desk accessories", "parent": "office"},
    "pantry": {"name": "Pantry", "parent": None},
    "pantry/coffee": {"name": "Coffee and tea", "parent": "pantry"},
    "pantry/snacks": {"name": "Snacks", "parent": "pantry"},
    "books": {"name": "Books", "parent": None},
    "books/business": {"name": "Business books", "parent": "books"},
    "books/children": {"name": "Children's books", "parent": "books"},
    "kids": {"name": "Kids", "parent": None},
    "kids/clothing": {"name": "Kids' clothing", "parent": "kids"},
    "kids/crafts": {"name": "Arts and crafts", "parent": "kids"},
    "gifts": {"name": "Gift sets", "parent": None},
}

#: The VAT category a product of each shop category normally has; catalog checks flag exceptions.
USUAL_VAT_CATEGORY = {
    "office": "standard",
    "pantry": "food",
    "books": "books",
    "kids/clothing": "children_clothing",
    "kids/crafts": "standard",
    "gifts": "standard",
}


def category_path(category):
    """``"pantry/coffee"`` -> ``["Pantry", "Coffee and tea"]``."""
    names = []
    current = category
    while current is not None:
        if current not in CATEGORIES:
            raise KeyError(f"unknown category {current!r}")
        names.insert(0, CATEGORIES[current]["name"])
        current = CATEGORIES[current]["parent"]
    return names


def top_level(category):
    """The top-level category of ``category``."""
    while CATEGORIES[category]["parent"] is not None:
        category = CATEGORIES[category]["parent"]
    return category


def children(category):
    return sorted(key for key, value in CATEGORIES.items() if value["parent"] == category)


def usual_vat_category(category):
    """The VAT category products in ``category`` usually have (most specific rule wins)."""
    current = category
    while current is not None:
        if current in USUAL_VAT_CATEGORY:
            return USUAL_VAT_CATEGORY[current]
        current = CATEGORIES[current]["parent"]
    return "standard"


def unusual_vat_categories(products):
    """Products whose VAT category differs from their category's usual one (for catalog review)."""
    flagged = []
    for product in products:
        if product.is_bundle:
            continue
        expected = usual_vat_category(product.category)
        if product.vat_category != expected:
            flagged.append((product.sku, product.category, product.vat_category, expected))
    return sorted(flagged)


def count_by_top_level(products):
    counts = {}
    for product in products:
        key = top_level(product.category)
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def breadcrumbs(category, separator=" > "):
    return separator.join(category_path(category))


def validate_tree():
    """Raises ValueError if a parent is missing or the tree has a cycle."""
    for key in CATEGORIES:
        seen = set()
        current = key
        while current is not None:
            if current in seen:
                raise ValueError(f"category cycle at {current!r}")
            seen.add(current)
            parent = CATEGORIES[current]["parent"]
            if parent is not None and parent not in CATEGORIES:
                raise ValueError(f"{current!r} has unknown parent {parent!r}")
            current = parent
