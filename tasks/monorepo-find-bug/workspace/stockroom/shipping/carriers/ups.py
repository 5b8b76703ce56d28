"""UPS Standard: heavy and wholesale parcels, and express worldwide.

Negotiated rates 2024; UPS charges a residential surcharge that we absorb (not modelled).
"""
import re
from decimal import Decimal

from ...money import round_money

CODE = "ups"
NAME = "UPS Standard"
SERVICES = {'standard': 'UPS Standard', 'saver': 'UPS Express Saver'}

#: Destination zone per country; countries not listed are not served.
ZONES = {'DE': 1, 'AT': 2, 'BE': 2, 'NL': 2, 'LU': 2, 'DK': 3, 'FR': 3, 'IT': 3, 'PL': 3, 'SE': 3, 'ES': 4, 'FI': 4, 'IE': 4, 'PT': 4, 'CH': 6, 'GB': 6, 'NO': 6}

#: Price per zone: ``[(maximum weight in grams, price in EUR), ...]``, lightest first.
PRICE_TABLE = {
    1: [(5000, "7.40"), (10000, "8.60"), (20000, "11.90"), (40000, "16.80"), (70000, "27.50")],
    2: [(5000, "13.10"), (10000, "16.00"), (20000, "21.40"), (40000, "31.00"), (70000, "49.00")],
    3: [(5000, "15.80"), (10000, "19.70"), (20000, "26.90"), (40000, "38.30"), (70000, "60.20")],
    4: [(5000, "18.20"), (10000, "22.80"), (20000, "31.60"), (40000, "45.10"), (70000, "71.00")],
    6: [(5000, "29.00"), (10000, "36.50"), (20000, "52.00"), (40000, "78.00"), (70000, "118.00")],
}

MAX_WEIGHT_G = 70000
MAX_LENGTH_MM = 2740
#: Surcharge on the base price, updated monthly by the carrier (fraction).
FUEL_SURCHARGE = Decimal("0.0875")
#: Extra charge per parcel for an express service, on top of the surcharged price.
EXPRESS_SUPPLEMENT = Decimal("14.00")

TRACKING_PATTERN = re.compile(r"1Z[0-9A-Z]{16}")
TRACKING_URL = "https://www.ups.com/track?tracknum={code}"

#: Typical transit days (minimum, maximum) by zone.
TRANSIT_DAYS = {1: (1, 1), 2: (1, 3), 3: (2, 4), 4: (3, 5), 6: (2, 6)}


def serves(country):
    return country in ZONES


def zone(country):
    """The carrier's zone for ``country``; KeyError if the carrier does not serve it."""
    return ZONES[country]


def base_price(country, weight_g):
    """The table price for a parcel of ``weight_g`` grams, or None if it is too heavy."""
    for max_weight, price in PRICE_TABLE[zone(country)]:
        if weight_g <= max_weight:
            return Decimal(price)
    return None


def quote(country, weight_g, length_mm=0, service="standard"):
    """What we pay for one parcel, or None if the carrier cannot take it.

    The fuel surcharge applies to the base price; the express supplement is added after it.
    """
    if not serves(country) or service not in SERVICES:
        return None
    if weight_g > MAX_WEIGHT_G or length_mm > MAX_LENGTH_MM:
        return None
    price = base_price(country, weight_g)
    if price is None:
        return None
    total = round_money(price * (Decimal(1) + FUEL_SURCHARGE))
    if service != "standard":
        total += EXPRESS_SUPPLEMENT
    return total


def transit_days(country):
    """``(minimum, maximum)`` transit days to ``country``."""
    return TRANSIT_DAYS[zone(country)]


def valid_tracking(code):
    return bool(TRACKING_PATTERN.fullmatch(code.strip()))


def tracking_url(code):
    """The public tracking page of a parcel."""
    if not valid_tracking(code):
        raise ValueError(f"{NAME}: not a tracking code: {code!r}")
    return TRACKING_URL.format(code=code.strip())


def label_fields(shipment, recipient_country):
    """The fields our label printer template needs for this carrier."""
    return {
        "carrier": NAME,
        "service": SERVICES.get(shipment.service, shipment.service),
        "weight_kg": f"{shipment.weight_g / 1000:.2f}",
        "zone": str(zone(recipient_country)),
        "tracking": shipment.tracking,
    }


def billable_weight(weight_g, length_mm, width_mm, height_mm):
    """UPS bills the larger of actual and volumetric weight (L x W x H in cm / 5000)."""
    volumetric = (length_mm * width_mm * height_mm) / 1000 / 5000 * 1000
    return max(weight_g, int(volumetric))
