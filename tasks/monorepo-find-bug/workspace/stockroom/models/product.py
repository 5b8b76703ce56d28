"""Catalog products."""
from dataclasses import dataclass, field
from decimal import Decimal

#: VAT categories a product can be in. Each tax region maps them to its own rates.
VAT_CATEGORIES = ("standard", "food", "books", "children_clothing")


@dataclass(frozen=True)
class Product:
    """One sellable SKU.

    ``list_price`` is the B2C price in EUR including German VAT; it is what the webshop shows.
    Orders carry the price actually charged per line, so a product's list price may change
    without affecting past orders.
    """

    sku: str
    name: str
    category: str
    vat_category: str
    list_price: Decimal
    weight_g: int
    length_mm: int = 0
    width_mm: int = 0
    height_mm: int = 0
    active: bool = True
    bundle_of: tuple = field(default_factory=tuple)
    supplier: str = ""
    unit_cost: Decimal = Decimal("0.00")

    def __post_init__(self):
        if self.vat_category not in VAT_CATEGORIES:
            raise ValueError(f"{self.sku}: unknown VAT category {self.vat_category!r}")
        if self.weight_g < 0:
            raise ValueError(f"{self.sku}: negative weight")

    @property
    def is_bundle(self):
        """Bundles are sold as one SKU but consist of several component SKUs."""
        return bool(self.bundle_of)

    @property
    def volume_cm3(self):
        return (self.length_mm * self.width_mm * self.height_mm) / 1000

    @property
    def margin(self):
        """List price minus unit cost (both gross of VAT for simplicity; only used for sorting)."""
        return self.list_price - self.unit_cost

    def components(self):
        """``[(sku, quantity), ...]`` for a bundle; ``[(self.sku, 1)]`` otherwise."""
        if not self.bundle_of:
            return [(self.sku, 1)]
        return [(sku, quantity) for sku, quantity in self.bundle_of]

    def fits_letterbox(self):
        """Whether the product alone fits a letterbox parcel (max 380 x 265 x 32 mm, 1 kg)."""
        dims = sorted((self.length_mm, self.width_mm, self.height_mm), reverse=True)
        return dims[0] <= 380 and dims[1] <= 265 and dims[2] <= 32 and self.weight_g <= 1000
