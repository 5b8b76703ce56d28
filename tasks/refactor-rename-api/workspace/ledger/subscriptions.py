"""Subscription billing."""

import ledger.pricing

ANNUAL_DISCOUNT_PCT = 15


def monthly_charge(plan_price, seats: int, tax_rate=0):
    return ledger.pricing.calc([(plan_price, seats)], tax_rate=tax_rate)


def annual_charge(plan_price, seats: int, tax_rate=0):
    return ledger.pricing.calc([(plan_price, seats * 12)], ANNUAL_DISCOUNT_PCT, tax_rate)
