#!/bin/sh
# pytest runs under the image's interpreter in isolated mode (-I): the workspace is not on
# sys.path when it starts, so nothing there can stand in for pytest, a plugin or the standard
# library; conftest.py appends it last, for the tests' imports. Bytecode is neither written
# nor read from the tree (-B, -X pycache_prefix).
set -eu
exec /usr/bin/python3 -I -B -X pycache_prefix=/usr/lib/verdict-pycache -m pytest -q -p no:cacheprovider /verdict/tests/test_hidden_billing.py
