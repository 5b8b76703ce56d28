"""Colissimo: parcels to France (better rates than the others there).

Colissimo International via La Poste's German partner; France and Belgium only.
"""
import re
from decimal import Decimal

from ...money import round_money

CODE = "colissimo"
NAME = "Colissimo"
SERVICES = {'domicile': 'Colissimo Domicile', 'signature': 'Colissimo avec signature'}

#: Destination zone per country; countries not listed are not served.
ZONES = {'FR': 1, 'BE': 2}

#: Price per zone: ``[(maximum weight in grams, price in EUR), ...]``, lightest first.
PRICE_TABLE = {
    1: [(1000, "7.10"), (5000, "9.40"), (10000, "13.90"), (30000, "24.80")],
    2: [(1000, "9.20"), (5000, "12.60"), (10000, "17.90"), (30000, "30.10")],
}

MAX_WEIGHT_G = 30000
MAX_LENGTH_MM = 1500
#: Surcharge on the base price, updated monthly by the carrier (fraction).
FUEL_SURCHARGE = Decimal("0.02")
#: Extra charge per parcel for an express service, on top of the surcharged price.
EXPRESS_SUPPLEMENT = Decimal("1.80")

TRACKING_PATTERN = re.compile(r"[0-9A-Z]{13}")
TRACKING_URL = "https://www.laposte.fr/outils/suivre-vos-envois?code={code}"

#: Typical transit days (minimum, maximum) by zone.
TRANSIT_DAYS = {1: (2, 4), 2: (3, 5)}


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


def quote(country, weight_g, length_mm=0, service="domicile"):
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
    if service != "domicile":
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
