"""DHL Paket: our main carrier for Germany and most of the EU.

Contract 2024 (valid 2024-01-01 to 2024-12-31). Prices exclude VAT; DHL bills monthly.
"""
import re
from decimal import Decimal

from ...money import round_money

CODE = "dhl"
NAME = "DHL Paket"
SERVICES = {'paket': 'DHL Paket', 'express': 'DHL Express'}

#: Destination zone per country; countries not listed are not served.
ZONES = {'DE': 1, 'AT': 2, 'BE': 2, 'DK': 2, 'LU': 2, 'NL': 2, 'FR': 3, 'IT': 3, 'PL': 3, 'SE': 3, 'ES': 4, 'FI': 4, 'IE': 4, 'PT': 4, 'CH': 5, 'GB': 5, 'NO': 5}

#: Price per zone: ``[(maximum weight in grams, price in EUR), ...]``, lightest first.
PRICE_TABLE = {
    1: [(2000, "4.10"), (5000, "5.20"), (10000, "6.90"), (31500, "9.80")],
    2: [(2000, "8.90"), (5000, "11.40"), (10000, "15.20"), (31500, "22.50")],
    3: [(2000, "10.30"), (5000, "13.60"), (10000, "18.10"), (31500, "27.90")],
    4: [(2000, "12.80"), (5000, "16.90"), (10000, "22.40"), (31500, "33.60")],
    5: [(2000, "17.50"), (5000, "23.80"), (10000, "31.00"), (31500, "46.00")],
}

MAX_WEIGHT_G = 31500
MAX_LENGTH_MM = 1200
#: Surcharge on the base price, updated monthly by the carrier (fraction).
FUEL_SURCHARGE = Decimal("0.045")
#: Extra charge per parcel for an express service, on top of the surcharged price.
EXPRESS_SUPPLEMENT = Decimal("9.50")

TRACKING_PATTERN = re.compile(r"\d{12,20}|JJD\d{18}")
TRACKING_URL = "https://www.dhl.de/en/privatkunden/dhl-sendungsverfolgung.html?piececode={code}"

#: Typical transit days (minimum, maximum) by zone.
TRANSIT_DAYS = {1: (1, 2), 2: (2, 4), 3: (3, 5), 4: (4, 7), 5: (3, 8)}


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


def quote(country, weight_g, length_mm=0, service="paket"):
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
    if service != "paket":
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


def needs_customs_declaration(country):
    """Parcels to zone 5 (outside the EU) need a CN23 declaration."""
    return serves(country) and zone(country) == 5
