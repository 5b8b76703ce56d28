"""Command line: ``python -m stockroom report NAME --month YYYY-MM [--data DIR]``.

Reports: sales, tax, returns, inventory, carriers, or ``all``. ``python -m stockroom check``
validates the data folder (orders, bundles, discount codes) and lists problems.
"""
import argparse
import sys
from pathlib import Path

from .catalog.bundles import check_bundles
from .config import DEFAULT_DATA_DIR
from .dates import parse_month
from .errors import StockroomError
from .orders.discounts import check_codes
from .orders.validation import invalid_orders
from .reports import REPORTS
from .storage.cache import dataset as load_cached


def build_parser():
    parser = argparse.ArgumentParser(prog="stockroom", description="Northwind Supplies back office.")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="print a monthly report")
    report.add_argument("name", choices=sorted(REPORTS) + ["all"])
    report.add_argument("--month", required=True, help="YYYY-MM")
    report.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="folder with the CSV exports")
    check = commands.add_parser("check", help="validate the data folder")
    check.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    return parser


def run_report(name, data_dir, month_text, out):
    year, month = parse_month(month_text)
    dataset = load_cached(data_dir)
    names = sorted(REPORTS) if name == "all" else [name]
    for index, report_name in enumerate(names):
        module = REPORTS[report_name]
        if index:
            out.write("\n")
        out.write(module.render(module.build(dataset, year, month)))


def run_check(data_dir, out):
    dataset = load_cached(data_dir)
    problems = []
    for order_id, found in sorted(invalid_orders(dataset.orders, dataset).items()):
        problems.extend(f"order {order_id}: {problem}" for problem in found)
    problems.extend(check_bundles(dataset.products))
    problems.extend(check_codes(dataset.discount_codes))
    for problem in problems:
        out.write(problem + "\n")
    out.write(f"{len(problems)} problem(s)\n")
    return 1 if problems else 0


def main(argv=None, out=None):
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.command == "report":
            run_report(args.name, args.data, args.month, out)
            return 0
        return run_check(args.data, out)
    except (StockroomError, ValueError) as error:
        print(f"stockroom: {error}", file=sys.stderr)
        return 2
