#!/bin/sh
# Hidden test for shell-fix-backup (BusyBox only).
set -u
here=$(pwd)
script="$here/backup.sh"
work=$(mktemp -d)
failures=0
passed=0
nl='
'

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
# Verdict learns what ran from a verdict-tests line (docs/tasks.md); run by hand, it is printed.
report() { echo "verdict-tests passed=$passed failed=$failures runner=sh" >>"${VERDICT_TESTS_REPORT:-/dev/stdout}"; }

[ -f "$script" ] || { echo "FAIL: backup.sh is missing"; exit 1; }

# run backup.sh from folder $1 with the remaining arguments; sets rc; output in $work/.out/.err
run_in() {
  dir=$1
  shift
  (cd "$dir" && sh "$script" "$@") >"$work/.out" 2>"$work/.err"
  rc=$?
}

# a description of every entry of a folder: names, types, file contents, link targets, modes
signature() {
  (
    cd "$1" || exit 1
    find . -type f -exec md5sum {} + | sort
    find . -type l -exec sh -c 'for l; do printf "L %s -> %s\n" "$l" "$(readlink "$l")"; done' sh {} + | sort
    find . -type d | sed 's/^/D /' | sort
    find . ! -type l -exec stat -c 'M %n %a' {} + | sort
  )
}

# check that archive $1 restores exactly folder $2
restores() { # ARCHIVE SOURCE LABEL
  if ! gzip -t "$1" 2>/dev/null; then fail "$3: archive is not valid gzip"; return; fi
  rm -rf "$work/restore"
  mkdir "$work/restore"
  if ! tar -xzf "$1" -C "$work/restore" 2>"$work/.tarerr"; then
    fail "$3: archive does not extract: $(head -c 200 "$work/.tarerr")"
    return
  fi
  if tar -tzf "$1" | grep -q '^/'; then fail "$3: archive has absolute member names"; fi
  [ "$(signature "$work/restore")" = "$(signature "$2")" ] || {
    fail "$3: restoring the archive does not recreate the source"
    echo "--- source"; signature "$2" | head -n 40
    echo "--- restored"; signature "$work/restore" | head -n 40
  }
}

expect_out() { # LABEL EXPECTED_LINE
  [ "$(cat "$work/.out")" = "$2" ] && [ "$(wc -l <"$work/.out")" -eq 1 ] ||
    fail "$1: stdout should be exactly '$2', got '$(head -c 200 "$work/.out")'"
}

# ---- a source folder full of awkward names ------------------------------------------------
src="$work/Client Projects"
mkdir -p "$src/sub dir" "$src/empty dir" "$src/deep/a/b" "$src/-dash dir"
echo plain >"$src/plain.txt"
echo "with spaces" >"$src/my file.txt"
echo dash >"$src/-rf"
echo help >"$src/--help"
echo star >"$src/*"
echo newline >"$src/new${nl}line.txt"
printf 'tab\n' >"$src/$(printf 'tab\there')"
echo subst >"$src/\$(touch PWNED)"
echo quotes >"$src/it's \"quoted\""
echo semi >"$src/a;b&c|d"
echo hidden >"$src/.hidden"
echo inner >"$src/sub dir/inner file.txt"
echo x >"$src/sub dir/-x"
echo deep >"$src/deep/a/b/c.txt"
echo d >"$src/-dash dir/--"
: >"$src/zero bytes"
head -c 3000 /dev/urandom >"$src/binary.bin"
chmod 750 "$src/sub dir"
chmod 600 "$src/plain.txt"
ln -s plain.txt "$src/link to plain"
ln -s "sub dir" "$src/dirlink"
files=$(find "$src" -type f -exec printf x \; | wc -c)
files=$((files + 0))

# ---- 1. relative paths, run from the parent folder ---------------------------------------
before=$failures
mkdir -p "$work/out"
run_in "$work" "Client Projects" "out/client projects.tgz"
[ $rc -eq 0 ] || fail "relative paths: exit status $rc ($(head -c 300 "$work/.err"))"
expect_out "relative paths" "backup: $files files"
restores "$work/out/client projects.tgz" "$src" "relative paths"
[ "$(ls -A "$work/out")" = "client projects.tgz" ] || fail "relative paths: extra files in the destination folder: $(ls -A "$work/out" | tr '\n' ' ')"
[ $failures -eq $before ] && ok "relative paths with spaces and awkward names"

# ---- 2. absolute paths, run from somewhere else -------------------------------------------
before=$failures
mkdir -p "$work/elsewhere"
echo "not part of the backup" >"$work/elsewhere/decoy.txt"
run_in "$work/elsewhere" "$src" "$work/out/abs.tgz"
[ $rc -eq 0 ] || fail "absolute paths: exit status $rc ($(head -c 300 "$work/.err"))"
expect_out "absolute paths" "backup: $files files"
restores "$work/out/abs.tgz" "$src" "absolute paths"
[ $failures -eq $before ] && ok "absolute paths"

# ---- 3. paths starting with a dash ------------------------------------------------------
before=$failures
mkdir -p "$work/dash/-src tree/inner"
echo one >"$work/dash/-src tree/inner/one"
echo two >"$work/dash/-src tree/-two"
run_in "$work/dash" "-src tree" "-backup.tgz"
[ $rc -eq 0 ] || fail "dash paths: exit status $rc ($(head -c 300 "$work/.err"))"
expect_out "dash paths" "backup: 2 files"
[ -f "$work/dash/-backup.tgz" ] && restores "$work/dash/-backup.tgz" "$work/dash/-src tree" "dash paths" || fail "dash paths: -backup.tgz was not created"
[ $failures -eq $before ] && ok "paths starting with a dash"

# ---- 4. an empty source folder -------------------------------------------------------------
before=$failures
mkdir -p "$work/empty src"
run_in "$work" "empty src" "out/empty.tgz"
[ $rc -eq 0 ] || fail "empty source: exit status $rc ($(head -c 300 "$work/.err"))"
expect_out "empty source" "backup: 0 files"
[ -f "$work/out/empty.tgz" ] && restores "$work/out/empty.tgz" "$work/empty src" "empty source" || fail "empty source: no archive"
[ $failures -eq $before ] && ok "empty source folder"

# ---- 5. an existing archive is replaced ------------------------------------------------------
before=$failures
echo "old archive" >"$work/out/replace.tgz"
run_in "$work" "Client Projects" "out/replace.tgz"
[ $rc -eq 0 ] || fail "replace: exit status $rc"
restores "$work/out/replace.tgz" "$src" "replace"
[ $failures -eq $before ] && ok "existing archive replaced"

# ---- 6. usage errors: status 2, nothing created ------------------------------------------
before=$failures
mkdir -p "$work/u"
echo "a file" >"$work/u/not-a-folder"
for args in "none" "one" "three" "missing" "file"; do
  case $args in
    none) run_in "$work/u" ;;
    one) run_in "$work/u" "$src" ;;
    three) run_in "$work/u" "$src" out.tgz extra ;;
    missing) run_in "$work/u" "no such folder" out.tgz ;;
    file) run_in "$work/u" not-a-folder out.tgz ;;
  esac
  [ $rc -eq 2 ] || fail "usage error ($args): exit status $rc, expected 2"
  [ -s "$work/.err" ] || fail "usage error ($args): no message on stderr"
done
[ "$(ls -A "$work/u")" = "not-a-folder" ] || fail "usage errors created files: $(ls -A "$work/u" | tr '\n' ' ')"
[ $failures -eq $before ] && ok "usage errors"

# ---- 7. an unreadable file: status 1, no partial archive, old archive kept ----------------
before=$failures
mkdir -p "$work/locked src" "$work/out2"
echo fine >"$work/locked src/fine.txt"
echo secret >"$work/locked src/locked.txt"
chmod 000 "$work/locked src/locked.txt"
run_in "$work" "locked src" "out2/new.tgz"
[ $rc -eq 1 ] || fail "unreadable file: exit status $rc, expected 1"
[ -s "$work/.err" ] || fail "unreadable file: no message on stderr"
[ -z "$(ls -A "$work/out2")" ] || fail "unreadable file: left files behind: $(ls -A "$work/out2" | tr '\n' ' ')"
cp "$work/out/abs.tgz" "$work/out2/existing.tgz"
sum_before=$(md5sum <"$work/out2/existing.tgz")
run_in "$work" "locked src" "out2/existing.tgz"
[ $rc -eq 1 ] || fail "unreadable file over an existing archive: exit status $rc, expected 1"
[ "$(md5sum <"$work/out2/existing.tgz")" = "$sum_before" ] || fail "a failed run changed the existing archive"
[ "$(ls -A "$work/out2")" = "existing.tgz" ] || fail "unreadable file: left files behind: $(ls -A "$work/out2" | tr '\n' ' ')"
chmod 644 "$work/locked src/locked.txt"
[ $failures -eq $before ] && ok "unreadable file"

# ---- 8. destination folder missing or not writable ----------------------------------------
before=$failures
run_in "$work" "Client Projects" "no such dir/x.tgz"
[ $rc -eq 1 ] || fail "missing destination folder: exit status $rc, expected 1"
[ ! -e "$work/no such dir" ] || fail "missing destination folder was created"
mkdir -p "$work/ro"
chmod 555 "$work/ro"
run_in "$work" "Client Projects" "ro/x.tgz"
[ $rc -eq 1 ] || fail "read-only destination: exit status $rc, expected 1"
[ -s "$work/.err" ] || fail "read-only destination: no message on stderr"
[ -z "$(ls -A "$work/ro")" ] || fail "read-only destination: files appeared"
chmod 755 "$work/ro"
[ $failures -eq $before ] && ok "bad destination folder"

# ---- 9. no name was ever executed -------------------------------------------------------
if [ -n "$(find "$work" "$here" /tmp -name PWNED 2>/dev/null)" ]; then
  fail "a file name was executed as a command (PWNED exists)"
else
  ok "no file name was executed"
fi

rm -rf "$work"
report
if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
