"""PostNL Pakket: parcels from the Rotterdam warehouse to the Benelux.

PostNL collects at the Rotterdam warehouse only; parcels from Berlin cannot use it.
"""
import re
from decimal import Decimal

from ...money import round_money

CODE = "postnl"
NAME = "PostNL Pakket"
SERVICES = {'pakket': 'PostNL Pakket', 'brievenbus': 'PostNL Brievenbuspakje'}

#: Destination zone per country; countries not listed are not served.
ZONES = {'NL': 1, 'BE': 2, 'LU': 2, 'DE': 3, 'FR': 3}

#: Price per zone: ``[(maximum weight in grams, price in EUR), ...]``, lightest first.
PRICE_TABLE = {
    1: [(2000, "4.35"), (10000, "6.25"), (23000, "11.80")],
    2: [(2000, "7.90"), (10000, "11.20"), (23000, "19.40")],
    3: [(2000, "9.80"), (10000, "13.90"), (23000, "23.50")],
}

MAX_WEIGHT_G = 23000
MAX_LENGTH_MM = 1750
#: Surcharge on the base price, updated monthly by the carrier (fraction).
FUEL_SURCHARGE = Decimal("0.03")
#: Extra charge per parcel for an express service, on top of the surcharged price.
EXPRESS_SUPPLEMENT = Decimal("0.00")

TRACKING_PATTERN = re.compile(r"3S[A-Z]{4}\d{7,9}")
TRACKING_URL = "https://jouw.postnl.nl/track-and-trace/{code}"

#: Typical transit days (minimum, maximum) by zone.
TRANSIT_DAYS = {1: (1, 1), 2: (1, 2), 3: (2, 3)}


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


def quote(country, weight_g, length_mm=0, service="pakket"):
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
    if service != "pakket":
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


LETTERBOX_MAX_G = 2000


def letterbox_price(country, weight_g):
    """Brievenbuspakje (fits through a letterbox): a flat price within the Netherlands."""
    if country != "NL" or weight_g > LETTERBOX_MAX_G:
        return None
    return Decimal("3.95")
