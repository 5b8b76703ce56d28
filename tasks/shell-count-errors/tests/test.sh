#!/bin/sh
# Hidden test for shell-count-errors (BusyBox only).
set -u
T=/verdict/tests
here=$(pwd)
script="$here/report.sh"
work=$(mktemp -d)
failures=0
passed=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
# Verdict learns what ran from a verdict-tests line (docs/tasks.md); run by hand, it is printed.
report() { echo "verdict-tests passed=$passed failed=$failures runner=sh" >>"${VERDICT_TESTS_REPORT:-/dev/stdout}"; }

expect_output() { # NAME EXPECTED_FILE ACTUAL_FILE RC ERRFILE
  if [ "$4" -ne 0 ]; then
    fail "$1: exit status $4 (stderr: $(head -c 300 "$5"))"
  elif ! cmp -s "$2" "$3"; then
    fail "$1: output differs"
    echo "--- expected"; cat "$2"; echo "--- got"; head -n 40 "$3"
  else
    ok "$1"
  fi
}

if [ ! -f "$script" ]; then
  echo "FAIL: report.sh is missing"
  exit 1
fi

# 1. the workspace logs, default LOGDIR, run from the workdir
(cd "$here" && sh ./report.sh) >"$work/out1" 2>"$work/err1"
expect_output "workspace logs, default folder" "$T/expected1.txt" "$work/out1" $? "$work/err1"

# 2. the same logs by absolute path, from another folder
(cd "$work" && sh "$script" "$here/logs") >"$work/out1b" 2>"$work/err1b"
expect_output "workspace logs by absolute path" "$T/expected1.txt" "$work/out1b" $? "$work/err1b"

# 3. a second log set in a folder whose name has a space
mkdir -p "$work/hidden logs"
cp -R "$T/logs2/." "$work/hidden logs/"
(cd / && sh "$script" "$work/hidden logs") >"$work/out2" 2>"$work/err2"
expect_output "second log set, absolute path with a space" "$T/expected2.txt" "$work/out2" $? "$work/err2"

# 4. the same, as a relative path
(cd "$work" && sh "$script" "hidden logs") >"$work/out2b" 2>"$work/err2b"
expect_output "second log set, relative path" "$T/expected2.txt" "$work/out2b" $? "$work/err2b"

# 5. no errors at all: empty output, success
: >"$work/empty"
(cd "$work" && sh "$script" "$T/logs3") >"$work/out3" 2>"$work/err3"
expect_output "log set without errors" "$work/empty" "$work/out3" $? "$work/err3"

# 6. an empty folder
mkdir -p "$work/nothing"
(cd "$work" && sh "$script" nothing) >"$work/out4" 2>"$work/err4"
expect_output "empty folder" "$work/empty" "$work/out4" $? "$work/err4"

# 7. a missing folder: non-zero exit, nothing on stdout
(cd "$work" && sh "$script" "$work/does not exist") >"$work/out5" 2>"$work/err5"
rc=$?
if [ "$rc" -eq 0 ]; then fail "missing folder: exit status 0"
elif [ -s "$work/out5" ]; then fail "missing folder: printed on stdout"
elif [ ! -s "$work/err5" ]; then fail "missing folder: no message on stderr"
else ok "missing folder"; fi

rm -rf "$work"
report
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
