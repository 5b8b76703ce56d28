"""GLS BusinessParcel: B2B deliveries to business addresses.

Used for wholesale orders; GLS only delivers to business addresses under our contract.
"""
import re
from decimal import Decimal

from ...money import round_money

CODE = "gls"
NAME = "GLS BusinessParcel"
SERVICES = {'business': 'GLS BusinessParcel', 'express': 'GLS ExpressParcel'}

#: Destination zone per country; countries not listed are not served.
ZONES = {'DE': 1, 'AT': 2, 'BE': 2, 'DK': 2, 'LU': 2, 'NL': 2, 'PL': 2, 'FR': 3, 'IT': 3, 'ES': 3, 'SE': 3, 'FI': 4, 'IE': 4, 'PT': 4}

#: Price per zone: ``[(maximum weight in grams, price in EUR), ...]``, lightest first.
PRICE_TABLE = {
    1: [(5000, "4.60"), (15000, "6.20"), (40000, "10.80")],
    2: [(5000, "9.40"), (15000, "13.50"), (40000, "21.70")],
    3: [(5000, "11.90"), (15000, "16.80"), (40000, "27.30")],
    4: [(5000, "14.70"), (15000, "20.90"), (40000, "33.80")],
}

MAX_WEIGHT_G = 40000
MAX_LENGTH_MM = 2000
#: Surcharge on the base price, updated monthly by the carrier (fraction).
FUEL_SURCHARGE = Decimal("0.062")
#: Extra charge per parcel for an express service, on top of the surcharged price.
EXPRESS_SUPPLEMENT = Decimal("11.00")

TRACKING_PATTERN = re.compile(r"[0-9A-Z]{8}|\d{11,12}")
TRACKING_URL = "https://gls-group.com/track/{code}"

#: Typical transit days (minimum, maximum) by zone.
TRANSIT_DAYS = {1: (1, 2), 2: (2, 3), 3: (3, 4), 4: (4, 6)}


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


def quote(country, weight_g, length_mm=0, service="business"):
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
    if service != "business":
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


BUSINESS_ONLY = True


def accepts(customer):
    """GLS takes only parcels to business customers under our contract."""
    return customer.is_business
