"""DPD Classic: cheaper option for Germany and neighbours.

Rates from the 2024 framework agreement. DPD does not deliver to Ireland or outside the EU for us.
"""
import re
from decimal import Decimal

from ...money import round_money

CODE = "dpd"
NAME = "DPD Classic"
SERVICES = {'classic': 'DPD Classic', 'predict': 'DPD Predict'}

#: Destination zone per country; countries not listed are not served.
ZONES = {'DE': 1, 'AT': 2, 'BE': 2, 'LU': 2, 'NL': 2, 'DK': 2, 'PL': 2, 'FR': 3, 'IT': 3, 'SE': 3, 'ES': 3, 'PT': 4, 'FI': 4}

#: Price per zone: ``[(maximum weight in grams, price in EUR), ...]``, lightest first.
PRICE_TABLE = {
    1: [(3000, "3.95"), (10000, "5.40"), (31500, "8.70")],
    2: [(3000, "8.20"), (10000, "12.10"), (31500, "19.90")],
    3: [(3000, "10.60"), (10000, "15.30"), (31500, "25.40")],
    4: [(3000, "13.40"), (10000, "19.80"), (31500, "31.20")],
}

MAX_WEIGHT_G = 31500
MAX_LENGTH_MM = 1750
#: Surcharge on the base price, updated monthly by the carrier (fraction).
FUEL_SURCHARGE = Decimal("0.05")
#: Extra charge per parcel for an express service, on top of the surcharged price.
EXPRESS_SUPPLEMENT = Decimal("2.50")

TRACKING_PATTERN = re.compile(r"\d{14}")
TRACKING_URL = "https://tracking.dpd.de/status/en_US/parcel/{code}"

#: Typical transit days (minimum, maximum) by zone.
TRANSIT_DAYS = {1: (1, 2), 2: (2, 3), 3: (3, 5), 4: (4, 6)}


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


def quote(country, weight_g, length_mm=0, service="classic"):
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
    if service != "classic":
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
