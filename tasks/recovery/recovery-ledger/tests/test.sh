#!/bin/sh
set -eu
export PYTHONDONTWRITEBYTECODE=1
exec python -m pytest -q -p no:cacheprovider /verdict/tests/test_ledger.py
