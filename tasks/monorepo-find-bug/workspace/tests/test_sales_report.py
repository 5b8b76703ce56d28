import io
from decimal import Decimal
from pathlib import Path

from stockroom.cli import main
from stockroom.reports import sales
from stockroom.storage import load_dataset

DATA = Path(__file__).parent / "fixtures" / "mini"


def test_march_summary():
    summary = sales.build(load_dataset(DATA), 2024, 3)
    assert summary.orders == 4
    assert summary.units == 47
    assert summary.gross == Decimal("337.60")
    assert summary.discounts == Decimal("5.57")
    assert summary.vat == Decimal("7.94")
    assert summary.net == Decimal("324.09")
    assert summary.refunds_net == Decimal("13.73")
    assert summary.net_revenue == Decimal("310.36")


def test_by_country():
    summary = sales.build(load_dataset(DATA), 2024, 3)
    assert summary.by_country["DE"].net == Decimal("45.84")
    assert summary.by_country["FR"].net == Decimal("43.24")
    assert summary.by_country["CH"].charged == Decimal("27.81")


def test_cli_output():
    out = io.StringIO()
    assert main(["report", "sales", "--month", "2024-03", "--data", str(DATA)], out=out) == 0
    assert "Net revenue                  310.36" in out.getvalue().splitlines()
