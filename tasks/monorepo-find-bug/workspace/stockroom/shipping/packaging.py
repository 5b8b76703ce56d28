"""Choosing a box for an order and computing the parcel's shipping weight.

The warehouse stocks five box sizes. The packing rule is deliberately simple: the smallest box
whose volume is at least 1.3 times the products' volume and whose longest side fits the longest
product. Orders that fit no box ship in several parcels of the largest box.
"""
import math
from dataclasses import dataclass

from ..catalog.bundles import expand_units


@dataclass(frozen=True)
class Box:
    code: str
    length_mm: int
    width_mm: int
    height_mm: int
    weight_g: int

    @property
    def volume_cm3(self):
        return self.length_mm * self.width_mm * self.height_mm / 1000

    @property
    def longest_mm(self):
        return max(self.length_mm, self.width_mm, self.height_mm)


BOXES = (
    Box("XS", 250, 175, 50, 90),
    Box("S", 300, 215, 140, 180),
    Box("M", 400, 300, 200, 320),
    Box("L", 500, 400, 300, 520),
    Box("XL", 800, 600, 400, 1100),
)

FILL_FACTOR = 1.3
#: Padding paper and tape per parcel, in grams.
FILLER_G = 60


def items_of(order, products):
    """``[(product, units)]`` of the physical items of an order (bundles expanded)."""
    items = []
    for line in order.lines:
        for sku, units in expand_units(products[line.sku], line.quantity, products):
            items.append((products[sku], units))
    return items


def items_volume(items):
    return sum(product.volume_cm3 * units for product, units in items)


def longest_item(items):
    longest = 0
    for product, _ in items:
        longest = max(longest, product.length_mm, product.width_mm, product.height_mm)
    return longest


def choose_box(items):
    """The smallest box that takes ``items``, or None if no single box does."""
    volume = items_volume(items) * FILL_FACTOR
    longest = longest_item(items)
    for box in BOXES:
        if box.volume_cm3 >= volume and box.longest_mm >= longest:
            return box
    return None


def parcels_needed(items):
    """How many parcels the items need (1 if a box fits, else by volume in XL boxes)."""
    if choose_box(items) is not None:
        return 1
    largest = BOXES[-1]
    return max(1, math.ceil(items_volume(items) * FILL_FACTOR / largest.volume_cm3))


def shipping_weight(order, products):
    """Total shipping weight in grams: products, boxes and filler."""
    items = items_of(order, products)
    grams = sum(product.weight_g * units for product, units in items)
    box = choose_box(items)
    if box is not None:
        return grams + box.weight_g + FILLER_G
    count = parcels_needed(items)
    return grams + count * (BOXES[-1].weight_g + FILLER_G)


def box_usage(orders, products):
    """``{box_code: count}`` over ``orders`` (``"split"`` for orders needing several parcels)."""
    usage = {box.code: 0 for box in BOXES}
    usage["split"] = 0
    for order in orders:
        box = choose_box(items_of(order, products))
        usage["split" if box is None else box.code] += 1
    return usage
