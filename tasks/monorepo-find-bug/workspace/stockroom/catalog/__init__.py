"""The product catalog: categories, prices, bundles, search."""
from .bundles import expand_amount, is_bundle
from .categories import CATEGORIES, category_path
from .pricing import b2b_price, tier_discount

__all__ = ["CATEGORIES", "b2b_price", "category_path", "expand_amount", "is_bundle", "tier_discount"]
