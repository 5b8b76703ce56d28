import os
import re
import subprocess
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

WORKDIR = Path.cwd()
HIDDEN = Path(__file__).parent / "data_hidden"

FIGURES = ["Orders", "Units", "Gross sales", "Discounts", "Sales incl. VAT", "VAT", "Net sales",
           "Refunds (net)", "Net revenue"]

EXPECTED = {
    ("data", "2024-02"): ["149", "1520", "28,842.89", "-146.65", "28,696.24", "-2,248.71", "26,447.53",
                          "-617.84", "25,829.69"],
    ("data", "2024-03"): ["155", "1767", "36,131.87", "-339.27", "35,792.60", "-2,998.32", "32,794.28",
                          "-875.00", "31,919.28"],
    ("data", "2024-04"): ["157", "2912", "59,425.76", "-205.81", "59,219.95", "-3,739.95", "55,480.00",
                          "-3,005.31", "52,474.69"],
    ("hidden", "2024-05"): ["117", "1537", "27,352.33", "-146.59", "27,205.74", "-1,931.89", "25,273.85",
                            "-171.49", "25,102.36"],
    ("hidden", "2024-06"): ["124", "1959", "31,908.08", "-66.39", "31,841.69", "-2,326.17", "29,515.52",
                            "-3,822.81", "25,692.71"],
}

EXPECTED_NL_OSS = {
    ("data", "2024-03"): [("9 %", "1,475.47", "132.81"), ("21 %", "557.37", "117.02")],
    ("data", "2024-04"): [("9 %", "2,486.54", "223.77"), ("21 %", "425.73", "89.41")],
    ("hidden", "2024-05"): [("9 %", "2,506.58", "225.59"), ("21 %", "466.62", "97.96")],
}


def run_report(name, month, data):
    folder = WORKDIR / "data" if data == "data" else HIDDEN
    env = dict(os.environ, PYTHONPATH=str(WORKDIR), PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run(
        [sys.executable, "-m", "stockroom", "report", name, "--month", month, "--data", str(folder)],
        cwd=WORKDIR, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def figures(text):
    found = {}
    for line in text.splitlines():
        match = re.match(r"^(.*?)\s{2,}(-?[\d,.]+)$", line)
        if match and match.group(1) in FIGURES:
            found[match.group(1)] = match.group(2)
    return found


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_sales_summary_matches_finance(key):
    data, month = key
    got = figures(run_report("sales", month, data))
    assert got == dict(zip(FIGURES, EXPECTED[key]))


@pytest.mark.parametrize("key", sorted(EXPECTED_NL_OSS))
def test_tax_report_nl_rows(key):
    data, month = key
    text = run_report("tax", month, data)
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if parts[:1] == ["NL"] and len(parts) == 5:
            rows.append((f"{parts[1]} {parts[2]}", parts[3], parts[4]))
    assert rows == EXPECTED_NL_OSS[key]


# -- the tax engine for every region: net = gross / (1 + rate), rounded half up ------------------

def _expected_net(gross, rate):
    return (gross / (Decimal(1) + rate)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


AMOUNTS = ["0.01", "0.99", "1.09", "7.90", "21.90", "109.00", "1234.56", "99999.99"]
CATEGORIES = ["standard", "food", "books", "children_clothing"]


def test_every_region_extracts_vat_from_gross():
    from stockroom.tax import engine

    problems = []
    for day in (date(2018, 6, 1), date(2020, 8, 1), date(2024, 3, 15)):
        for country in engine.countries():
            for category in CATEGORIES:
                rate = engine.rate(country, category, day)
                for amount in AMOUNTS:
                    gross = Decimal(amount)
                    net = engine.net_amount(gross, country, category, day)
                    if net != _expected_net(gross, rate):
                        problems.append(f"{country} {category} {day} {gross}: net {net}, expected {_expected_net(gross, rate)}")
                    if net + engine.vat_amount(gross, country, category, day) != gross:
                        problems.append(f"{country} {category} {day} {gross}: net + VAT != gross")
    assert not problems, "\n".join(problems[:20])


def test_nl_reduced_rate_examples():
    from stockroom.tax import engine

    assert engine.net_amount(Decimal("109.00"), "NL", "food", date(2024, 3, 1)) == Decimal("100.00")
    assert engine.net_amount(Decimal("109.00"), "NL", "books", date(2024, 3, 1)) == Decimal("100.00")
    assert engine.net_amount(Decimal("106.00"), "NL", "food", date(2018, 12, 31)) == Decimal("100.00")
    assert engine.net_amount(Decimal("121.00"), "NL", "standard", date(2024, 3, 1)) == Decimal("100.00")
    assert engine.rate("NL", "food", date(2024, 3, 1)) == Decimal("0.09")
