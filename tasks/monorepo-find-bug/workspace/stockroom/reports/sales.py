"""The monthly sales summary: finance's revenue figure.

Definitions (all amounts in EUR, see ``orders.totals`` for how a line becomes money):

- Orders, Units: orders placed in the month (UTC) that count as a sale (``orders.status``), and
  their units.
- Gross sales: quantity times unit price, before discounts.
- Discounts: what discount codes took off.
- Sales incl. VAT: gross sales minus discounts: what customers paid for goods.
- VAT: the VAT contained in that (none for exports and reverse-charged B2B sales).
- Net sales: sales incl. VAT minus VAT.
- Refunds (net): refunds paid out in the month, without their VAT, whatever month the order was in.
- Net revenue: net sales minus refunds (net). Shipping fees are not revenue here (they are booked
  against shipping costs) and neither are channel fees.
"""
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from ..config import CHANNELS
from ..dates import in_month
from ..orders.status import counts_as_sale
from ..orders.totals import order_totals, refund_totals, sum_totals
from . import formatting as fmt

ZERO = Decimal("0.00")


@dataclass
class Bucket:
    orders: int = 0
    charged: Decimal = ZERO
    net: Decimal = ZERO


@dataclass
class SalesSummary:
    month: str
    orders: int = 0
    units: int = 0
    gross: Decimal = ZERO
    discounts: Decimal = ZERO
    charged: Decimal = ZERO
    vat: Decimal = ZERO
    net: Decimal = ZERO
    refunds: Decimal = ZERO
    refunds_net: Decimal = ZERO
    by_country: dict = field(default_factory=dict)
    by_channel: dict = field(default_factory=dict)

    @property
    def net_revenue(self):
        return self.net - self.refunds_net


def orders_in_month(dataset, year, month):
    """The orders placed in the month that count as sales, oldest first."""
    selected = [o for o in dataset.orders if in_month(o.placed_at, year, month) and counts_as_sale(o)]
    return sorted(selected, key=lambda order: (order.placed_at, order.order_id))


def refunds_in_month(dataset, year, month):
    return [refund for refund in dataset.refunds if in_month(refund.refunded_at, year, month)]


def build(dataset, year, month):
    """The SalesSummary for one month."""
    summary = SalesSummary(month=f"{year:04d}-{month:02d}")
    countries = defaultdict(Bucket)
    channels = defaultdict(Bucket)
    for order in orders_in_month(dataset, year, month):
        sums = sum_totals(order_totals(order, dataset))
        summary.orders += 1
        summary.units += order.units
        summary.gross += sums["list_amount"]
        summary.discounts += sums["discount"]
        summary.charged += sums["charged"]
        summary.vat += sums["vat"]
        summary.net += sums["net"]
        for bucket in (countries[order.ship_country], channels[order.channel]):
            bucket.orders += 1
            bucket.charged += sums["charged"]
            bucket.net += sums["net"]
    orders_by_id = dataset.orders_by_id()
    for refund in refunds_in_month(dataset, year, month):
        totals = refund_totals(refund, dataset, orders_by_id)
        summary.refunds += totals.charged
        summary.refunds_net += totals.net
    summary.by_country = dict(sorted(countries.items()))
    summary.by_channel = {key: channels[key] for key in CHANNELS if key in channels}
    return summary


def render(summary):
    head = fmt.title(f"Sales summary {summary.month} (EUR)")
    figures = [
        fmt.value_line("Orders", summary.orders),
        fmt.value_line("Units", summary.units),
        fmt.value_line("Gross sales", summary.gross),
        fmt.value_line("Discounts", fmt.negative(summary.discounts)),
        fmt.value_line("Sales incl. VAT", summary.charged),
        fmt.value_line("VAT", fmt.negative(summary.vat)),
        fmt.value_line("Net sales", summary.net),
        fmt.value_line("Refunds (net)", fmt.negative(summary.refunds_net)),
        fmt.value_line("Net revenue", summary.net_revenue),
    ]
    country_rows = [(c, b.orders, b.charged, b.net) for c, b in summary.by_country.items()]
    by_country = ["By country"] + fmt.table(
        ["country", "orders", "sales incl. VAT", "net sales"], country_rows, money_columns=(2, 3)
    )
    channel_rows = [(CHANNELS[c], b.orders, b.charged, b.net) for c, b in summary.by_channel.items()]
    by_channel = ["By channel"] + fmt.table(
        ["channel", "orders", "sales incl. VAT", "net sales"], channel_rows, money_columns=(2, 3)
    )
    return fmt.join(head + figures, by_country, by_channel)
