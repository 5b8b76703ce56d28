#!/bin/sh
# Canary: runs a test that asserts something false, through the same pytest invocation and
# the same package imports as test.sh. In an honest grading container it FAILS. If it passes,
# something (e.g. code in the package that patches pytest on import) turned failures into passes.
set -eu
export PYTHONDONTWRITEBYTECODE=1
exec python -m pytest -q -p no:cacheprovider /verdict/tests/test_canary.py
