"""Bundles: one SKU sold at one price, made of several component SKUs.

For VAT, a bundle is not one supply: each component is taxed at its own rate. The bundle's amount
is split across the components in proportion to their list prices (times quantity), with the
rounding remainder going to the largest parts, so that the parts add up to the bundle's amount
exactly. A coffee gift box (coffee: food, mug: standard) is the common case.
"""
from ..errors import UnknownProduct
from ..money import allocate


def is_bundle(product):
    return product.is_bundle


def component_products(product, products):
    """``[(component_product, quantity_per_bundle), ...]``."""
    parts = []
    for sku, quantity in product.components():
        if sku not in products:
            raise UnknownProduct(sku)
        parts.append((products[sku], quantity))
    return parts


def expand_amount(product, amount, products):
    """Splits ``amount`` charged for (some units of) ``product`` into ``[(component, part)]``.

    For a product that is not a bundle, the result is ``[(product, amount)]``.
    """
    if not product.is_bundle:
        return [(product, amount)]
    parts = component_products(product, products)
    weights = [component.list_price * quantity for component, quantity in parts]
    if sum(weights) == 0:
        weights = [quantity for _, quantity in parts]
    shares = allocate(amount, weights)
    return [(component, share) for (component, _), share in zip(parts, shares)]


def expand_units(product, quantity, products):
    """``[(component_sku, units), ...]`` picked from stock for ``quantity`` bundles."""
    if not product.is_bundle:
        return [(product.sku, quantity)]
    return [(component.sku, per_bundle * quantity) for component, per_bundle in component_products(product, products)]


def bundle_weight(product, products):
    """The shipping weight of a bundle: its components' weights plus 5 % packaging."""
    if not product.is_bundle:
        return product.weight_g
    grams = sum(component.weight_g * quantity for component, quantity in component_products(product, products))
    return int(grams * 1.05)


def check_bundles(products):
    """Problems with bundle definitions: unknown components, nested bundles, empty bundles."""
    problems = []
    for product in products.values():
        if not product.is_bundle:
            continue
        for sku, quantity in product.components():
            if sku not in products:
                problems.append(f"{product.sku}: unknown component {sku}")
            elif products[sku].is_bundle:
                problems.append(f"{product.sku}: component {sku} is itself a bundle")
            if quantity <= 0:
                problems.append(f"{product.sku}: component {sku} has quantity {quantity}")
    return problems
