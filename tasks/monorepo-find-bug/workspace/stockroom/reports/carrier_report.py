"""The monthly carrier report: parcels, costs and transit times per carrier.

Also compares what each parcel cost with the cheapest quote we could have had (``shipping.rates``)
to spot parcels sent with the wrong carrier.
"""
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from statistics import median

from ..dates import in_month
from ..errors import NoCarrier
from ..shipping import rates
from ..shipping.carriers import CARRIERS
from . import formatting as fmt


@dataclass
class CarrierReport:
    month: str
    rows: list = field(default_factory=list)
    overpaid: list = field(default_factory=list)


def build(dataset, year, month):
    report = CarrierReport(month=f"{year:04d}-{month:02d}")
    grouped = defaultdict(list)
    for shipment in dataset.shipments:
        if in_month(shipment.shipped_at, year, month):
            grouped[shipment.carrier].append(shipment)
    orders = dataset.orders_by_id()
    for code, shipments in sorted(grouped.items()):
        cost = sum((s.cost for s in shipments), Decimal("0.00"))
        transit = [s.transit_days() for s in shipments if s.transit_days() is not None]
        name = CARRIERS[code].NAME if code in CARRIERS else code
        report.rows.append((name, len(shipments), cost, median(transit) if transit else None))
        for shipment in shipments:
            order = orders.get(shipment.order_id)
            if order is None:
                continue
            customer = dataset.customers[order.customer_id]
            try:
                best, best_code = rates.cheapest(order.ship_country, shipment.weight_g, customer)
            except NoCarrier:
                continue
            if shipment.cost - best > Decimal("1.00"):
                report.overpaid.append((shipment.shipment_id, code, shipment.cost, best_code, best))
    return report


def render(report):
    head = fmt.title(f"Carriers {report.month} (EUR)")
    table = fmt.table(["carrier", "parcels", "cost", "median days"], report.rows, money_columns=(2,))
    overpaid = []
    if report.overpaid:
        overpaid = ["Parcels more than 1.00 above the cheapest quote"] + fmt.table(
            ["shipment", "carrier", "cost", "cheapest", "quote"], report.overpaid, money_columns=(2, 4)
        )
    return fmt.join(head + table, overpaid)
