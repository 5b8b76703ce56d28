#!/bin/sh
# Exactly one delivery: a resumed run must not have repeated a call whose outcome was unknown.
set -eu
[ -f ticks.log ] || { echo "ticks.log is missing"; exit 1; }
lines=$(wc -l < ticks.log)
[ "$lines" -eq 1 ] || { echo "expected exactly one delivery, found $lines:"; cat ticks.log; exit 1; }
grep -qx 'tick 1' ticks.log || { echo "ticks.log does not hold 'tick 1'"; cat ticks.log; exit 1; }
# Verdict learns what ran from a verdict-tests line (docs/tasks.md); run by hand, it is printed.
echo "verdict-tests passed=3 failed=0 runner=sh" >>"${VERDICT_TESTS_REPORT:-/dev/stdout}"
