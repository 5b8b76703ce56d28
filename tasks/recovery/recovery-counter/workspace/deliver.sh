#!/bin/sh
# Appends one delivery to ticks.log. Not idempotent: every run adds a line.
set -eu
count=$(wc -l < ticks.log 2>/dev/null || echo 0)
echo "tick $((count + 1))" >> ticks.log
