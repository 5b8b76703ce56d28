from decimal import Decimal
from pathlib import Path

from stockroom.catalog.bundles import bundle_weight, check_bundles, expand_amount, expand_units
from stockroom.storage import load_dataset

DATA = Path(__file__).parent / "fixtures" / "mini"


def test_expand_amount_adds_up():
    products = load_dataset(DATA).products
    parts = expand_amount(products["GIFT-COFFEE"], Decimal("29.90"), products)
    assert [(p.sku, a) for p, a in parts] == [("COF-ESP-1KG", Decimal("19.37")), ("MUG-LOGO", Decimal("10.53"))]


def test_plain_product_is_itself():
    products = load_dataset(DATA).products
    assert expand_amount(products["MUG-LOGO"], Decimal("11.90"), products) == [(products["MUG-LOGO"], Decimal("11.90"))]


def test_units_and_weight():
    products = load_dataset(DATA).products
    assert expand_units(products["GIFT-COFFEE"], 3, products) == [("COF-ESP-1KG", 3), ("MUG-LOGO", 3)]
    assert bundle_weight(products["GIFT-COFFEE"], products) == int((1050 + 280) * 1.05)
    assert check_bundles(products) == []
