#!/bin/sh
# Hidden test for shell-rotate-logs (BusyBox only).
set -u
here=$(pwd)
script="$here/rotate.sh"
work=$(mktemp -d)
failures=0
passed=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
# Verdict learns what ran from a verdict-tests line (docs/tasks.md); run by hand, it is printed.
report() { echo "verdict-tests passed=$passed failed=$failures runner=sh" >>"${VERDICT_TESTS_REPORT:-/dev/stdout}"; }

[ -f "$script" ] || { echo "FAIL: rotate.sh is missing"; exit 1; }

rotate() { # rotate.sh with the given arguments; sets rc, out, err
  sh "$script" "$@" >"$work/.out" 2>"$work/.err"
  rc=$?
}

# the content written in round N (compressible, and distinct per round)
round_content() {
  printf 'round %s begins\n' "$1"
  i=0
  while [ $i -lt 40 ]; do
    printf '2024-03-05T10:%02d:00Z [INFO] service=relay round=%s line=%s\n' $i "$1" $i
    i=$((i + 1))
  done
  printf 'round %s ends' "$1"   # no final newline: bytes must be kept exactly
}

listing() { (cd "$1" && ls -A | sort | tr '\n' ' '); }

# state of a folder: names, modes, sizes and checksums of every file
snapshot() { (cd "$1" && find . -type f -exec md5sum {} + | sort && find . -exec stat -c '%n %a %s' {} + | sort); }

# check that FOLDER/NAME holds round R (plain or gzip)
holds_round() { # FOLDER NAME R
  round_content "$3" >"$work/.expected"
  case $2 in
    *.gz)
      if ! gzip -t "$1/$2" 2>/dev/null; then fail "$2 is not a valid gzip file"; return; fi
      gzip -dc "$1/$2" >"$work/.actual"
      ;;
    *) cp "$1/$2" "$work/.actual" ;;
  esac
  cmp -s "$work/.expected" "$work/.actual" || fail "$2 should hold round $3"
}

# expected names after ROUNDS rotations with KEEP
expected_names() { # LOGNAME ROUNDS KEEP [extra names...]
  name=$1 rounds=$2 keep=$3
  shift 3
  {
    echo "$name"
    [ "$rounds" -ge 1 ] && echo "$name.1"
    k=2
    while [ $k -le "$keep" ] && [ $k -le "$rounds" ]; do echo "$name.$k.gz"; k=$((k + 1)); done
    for extra in "$@"; do echo "$extra"; done
  } | sort | tr '\n' ' '
}

check_rounds() { # FOLDER LOGNAME ROUNDS KEEP [extra names...]
  dir=$1 name=$2 rounds=$3 keep=$4
  shift 4
  want=$(expected_names "$name" "$rounds" "$keep" "$@")
  got=$(listing "$dir")
  [ "$got" = "$want" ] || fail "after $rounds rounds (KEEP=$keep) expected files: $want; got: $got"
  [ -f "$dir/$name" ] && [ ! -s "$dir/$name" ] || fail "$name should exist and be empty"
  [ -f "$dir/$name.1" ] && holds_round "$dir" "$name.1" "$rounds"
  k=2
  while [ $k -le "$keep" ] && [ $k -le "$rounds" ]; do
    [ -f "$dir/$name.$k.gz" ] && holds_round "$dir" "$name.$k.gz" $((rounds - k + 1))
    k=$((k + 1))
  done
}

# --- 1. several rounds with KEEP=3, plus untouched neighbours --------------------------------
d="$work/one"
mkdir -p "$d"
echo "keep me" >"$d/app.log.bak"
echo "keep me too" >"$d/app.logger"
echo "other" >"$d/other.log"
before=$failures
r=1
while [ $r -le 6 ]; do
  round_content $r >"$d/app.log"
  rotate "$d/app.log" 3
  [ $rc -eq 0 ] || fail "round $r: exit status $rc ($(head -c 200 "$work/.err"))"
  check_rounds "$d" app.log $r 3 app.log.bak app.logger other.log
  r=$((r + 1))
done
[ "$(cat "$d/app.log.bak")" = "keep me" ] && [ "$(cat "$d/other.log")" = "other" ] || fail "other files were changed"
[ $failures -eq $before ] && ok "six rounds with KEEP=3"

# --- 2. idempotent: an empty log is not rotated ----------------------------------------------
before=$failures
snap1=$(snapshot "$d")
rotate "$d/app.log" 3
[ $rc -eq 0 ] || fail "empty log: exit status $rc"
rotate "$d/app.log" 3
snap2=$(snapshot "$d")
[ "$snap1" = "$snap2" ] || fail "rotating an empty log changed the folder"
[ $failures -eq $before ] && ok "empty log is left alone"

# --- 3. missing log: nothing happens ---------------------------------------------------------
before=$failures
mkdir -p "$work/missing"
rotate "$work/missing/app.log"
[ $rc -eq 0 ] || fail "missing log: exit status $rc"
[ -z "$(ls -A "$work/missing")" ] || fail "missing log: files were created: $(listing "$work/missing")"
[ $failures -eq $before ] && ok "missing log"

# --- 4. default KEEP is 5; permissions are kept ----------------------------------------------
before=$failures
d="$work/default"
mkdir -p "$d"
r=1
while [ $r -le 7 ]; do
  round_content $r >"$d/relay.log"
  chmod 640 "$d/relay.log"
  rotate "$d/relay.log"
  [ $rc -eq 0 ] || fail "default KEEP round $r: exit status $rc"
  [ "$(stat -c %a "$d/relay.log")" = 640 ] || fail "new relay.log has mode $(stat -c %a "$d/relay.log"), not 640"
  r=$((r + 1))
done
check_rounds "$d" relay.log 7 5
chmod 604 "$d/relay.log"
round_content 8 >>"$d/relay.log"
rotate "$d/relay.log"
[ "$(stat -c %a "$d/relay.log")" = 604 ] || fail "new relay.log has mode $(stat -c %a "$d/relay.log"), not 604"
[ "$(stat -c %a "$d/relay.log.1")" = 604 ] || fail "relay.log.1 lost its mode"
check_rounds "$d" relay.log 8 5
[ $failures -eq $before ] && ok "default KEEP=5 and permissions"

# --- 5. a smaller KEEP drops the surplus, including stale high numbers -----------------------
before=$failures
echo stale | gzip >"$d/relay.log.12.gz"
round_content 9 >"$d/relay.log"
rotate "$d/relay.log" 2
[ $rc -eq 0 ] || fail "KEEP=2: exit status $rc"
check_rounds "$d" relay.log 9 2
round_content 10 >"$d/relay.log"
rotate "$d/relay.log" 1
[ $rc -eq 0 ] || fail "KEEP=1: exit status $rc"
check_rounds "$d" relay.log 10 1
[ $failures -eq $before ] && ok "smaller KEEP"

# --- 6. spaces, relative paths, leading zeros -------------------------------------------------
before=$failures
d="$work/my logs"
mkdir -p "$d"
r=1
while [ $r -le 4 ]; do
  round_content $r >"$d/app server.log"
  (cd "$work" && sh "$script" "my logs/app server.log" 03 >/dev/null 2>"$work/.err")
  rc=$?
  [ $rc -eq 0 ] || fail "path with spaces, round $r: exit status $rc ($(head -c 200 "$work/.err"))"
  r=$((r + 1))
done
check_rounds "$d" "app server.log" 4 3
[ $failures -eq $before ] && ok "paths with spaces, relative path"

# --- 7. bad KEEP values are usage errors and change nothing ---------------------------------
before=$failures
d="$work/bad"
mkdir -p "$d"
round_content 1 >"$d/app.log"
snap1=$(snapshot "$d")
for bad in 0 -1 abc 3x 2.5 00; do
  rotate "$d/app.log" "$bad"
  [ $rc -eq 2 ] || fail "KEEP=$bad: exit status $rc, expected 2"
  [ -s "$work/.err" ] || fail "KEEP=$bad: no message on stderr"
done
rotate
[ $rc -eq 2 ] || fail "no arguments: exit status $rc, expected 2"
snap2=$(snapshot "$d")
[ "$snap1" = "$snap2" ] || fail "a usage error changed files"
[ $failures -eq $before ] && ok "usage errors"

# --- 8. recovering from an interrupted run ---------------------------------------------------
before=$failures
d="$work/crashed"
mkdir -p "$d"
round_content 1 >"$d/app.log.3"                 # never got compressed
round_content 1 | gzip | head -c 100 >"$d/app.log.3.gz"   # and an incomplete .gz beside it
round_content 2 | gzip >"$d/app.log.2.gz"
round_content 3 >"$d/app.log.1"
round_content 4 >"$d/app.log"
rotate "$d/app.log" 4
[ $rc -eq 0 ] || fail "recovery: exit status $rc ($(head -c 200 "$work/.err"))"
check_rounds "$d" app.log 4 4
[ $failures -eq $before ] && ok "recovery from an interrupted run"

# --- 9. a folder that cannot be written -------------------------------------------------------
before=$failures
d="$work/readonly"
mkdir -p "$d"
round_content 1 >"$d/app.log"
round_content 0 >"$d/app.log.1"
chmod 555 "$d"
snap1=$(snapshot "$d")
rotate "$d/app.log" 3
snap2=$(snapshot "$d")
chmod 755 "$d"
[ $rc -ne 0 ] || fail "unwritable folder: exit status 0"
[ -s "$work/.err" ] || fail "unwritable folder: no message on stderr"
[ "$snap1" = "$snap2" ] || fail "unwritable folder: files changed"
[ $failures -eq $before ] && ok "unwritable folder"

rm -rf "$work"
report
if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
