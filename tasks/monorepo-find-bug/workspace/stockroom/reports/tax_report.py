"""The monthly VAT report: the figures for the German VAT return and the OSS return.

Sales are grouped by treatment (``tax.rules.treatment``) and, for OSS sales, by destination
country and rate. Refunds paid out in the month reduce the figures of the country and rate of the
original sale. This report is an input for the tax adviser, who files the returns.
"""
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from ..catalog.bundles import expand_amount
from ..dates import month_bounds
from ..orders.totals import order_totals
from ..tax import engine, rules
from . import formatting as fmt
from .sales import orders_in_month, refunds_in_month

ZERO = Decimal("0.00")


@dataclass
class TaxReport:
    month: str
    by_treatment: dict = field(default_factory=dict)
    oss: dict = field(default_factory=dict)
    rates_appendix: list = field(default_factory=list)


def _add(table, key, net, vat):
    current = table.get(key, (ZERO, ZERO))
    table[key] = (current[0] + net, current[1] + vat)


def _oss_parts(order, amount, sku, dataset):
    """``[(rate, net, vat)]`` of an amount of one line, per component rate."""
    day = order.placed_at.date()
    parts = []
    for component, part in expand_amount(dataset.products[sku], amount, dataset.products):
        net, vat = engine.split(part, order.ship_country, component.vat_category, day)
        parts.append((engine.rate(order.ship_country, component.vat_category, day), net, vat))
    return parts


def build(dataset, year, month):
    report = TaxReport(month=f"{year:04d}-{month:02d}")
    treatments = {}
    oss = defaultdict(dict)
    for order in orders_in_month(dataset, year, month):
        customer = dataset.customers[order.customer_id]
        treatment = rules.treatment(order, customer)
        for item in order_totals(order, dataset):
            _add(treatments, treatment, item.net, item.vat)
            if treatment == "oss":
                for rate, net, vat in _oss_parts(order, item.charged, item.sku, dataset):
                    _add(oss[order.ship_country], rate, net, vat)
    orders_by_id = dataset.orders_by_id()
    for refund in refunds_in_month(dataset, year, month):
        order = orders_by_id[refund.order_id]
        customer = dataset.customers[order.customer_id]
        treatment = rules.treatment(order, customer)
        amount = dataset.rates.to_base(refund.amount, order.currency, order.month)
        sku = order.line(refund.line_no).sku
        if treatment in ("export", "reverse_charge"):
            _add(treatments, treatment, -amount, ZERO)
            continue
        for rate, net, vat in _oss_parts(order, amount, sku, dataset):
            _add(treatments, treatment, -net, -vat)
            if treatment == "oss":
                _add(oss[order.ship_country], rate, -net, -vat)
    report.by_treatment = {key: treatments[key] for key in rules.TREATMENT_LABELS if key in treatments}
    report.oss = {country: dict(sorted(rates.items())) for country, rates in sorted(oss.items())}
    start, _ = month_bounds(year, month)
    for country in report.oss:
        report.rates_appendix.extend(engine.region_for(country).describe(start.date()))
    return report


def render(report):
    head = fmt.title(f"VAT report {report.month} (EUR)")
    rows = [(rules.TREATMENT_LABELS[key], net, vat) for key, (net, vat) in report.by_treatment.items()]
    treatments = fmt.table(["treatment", "net", "VAT"], rows, money_columns=(1, 2))
    oss_rows = []
    for country, rates in report.oss.items():
        for rate, (net, vat) in rates.items():
            oss_rows.append((country, f"{(rate * 100).normalize():f} %", net, vat))
    oss = ["OSS by country and rate"] + fmt.table(["country", "rate", "net", "VAT"], oss_rows, money_columns=(2, 3))
    appendix = ["Rates used"] + ["  " + line for line in report.rates_appendix]
    return fmt.join(head + treatments, oss, appendix)
