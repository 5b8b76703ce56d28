#!/bin/sh
# rotate.sh LOGFILE [KEEP] -- rotate LOGFILE, keeping KEEP rotated copies (see README.md):
#   LOGFILE -> LOGFILE.1 -> LOGFILE.2.gz -> ... -> LOGFILE.KEEP.gz
# A missing or empty LOGFILE is left alone, so running twice in a row rotates once.
set -u

usage() {
  echo "usage: rotate.sh LOGFILE [KEEP]   (KEEP: a whole number >= 1, default 5)" >&2
  exit 2
}
die() {
  echo "rotate.sh: $*" >&2
  exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
log=$1
keep=${2-5}
[ -n "$log" ] || usage
case $keep in
  '' | *[!0-9]*) usage ;;
esac
while [ "${keep#0}" != "$keep" ]; do keep=${keep#0}; done  # 007 -> 7 (not octal)
[ -n "$keep" ] || usage                                      # it was all zeros

[ -s "$log" ] || exit 0

# compress SRC into DEST via a temporary file, so that DEST is never incomplete
compress() {
  gzip -c "$1" >"$2.tmp" && mv -f "$2.tmp" "$2" || {
    rm -f "$2.tmp"
    die "cannot compress $1 into $2"
  }
}

# the number N of a rotated copy "$log.N" or "$log.N.gz", or nothing
number_of() {
  n=${1#"$log".}
  n=${n%.gz}
  case $n in
    '' | *[!0-9]*) n= ;;
  esac
}

# 1. finish compressions that an earlier, interrupted run left undone
for file in "$log".[0-9]*; do
  [ -f "$file" ] || continue
  case $file in *.gz | *.tmp) continue ;; esac
  number_of "$file"
  [ -n "$n" ] && [ "$n" -ge 2 ] || continue
  compress "$file" "$file.gz"
  rm -f "$file" || die "cannot remove $file"
done

# 2. drop what would be shifted beyond KEEP
for file in "$log".[0-9]*.gz; do
  [ -f "$file" ] || continue
  number_of "$file"
  [ -n "$n" ] && [ "$n" -ge 2 ] || continue
  if [ "$n" -ge "$keep" ]; then
    rm -f "$file" || die "cannot remove $file"
  fi
done

# 3. shift the compressed copies up by one, oldest first
i=$((keep - 1))
while [ "$i" -ge 2 ]; do
  if [ -f "$log.$i.gz" ]; then
    mv -f "$log.$i.gz" "$log.$((i + 1)).gz" || die "cannot rename $log.$i.gz"
  fi
  i=$((i - 1))
done

# 4. LOGFILE.1 -> LOGFILE.2.gz
if [ -f "$log.1" ]; then
  if [ "$keep" -ge 2 ]; then
    compress "$log.1" "$log.2.gz"
  fi
  rm -f "$log.1" || die "cannot remove $log.1"
fi

# 5. LOGFILE -> LOGFILE.1, and a new empty LOGFILE with the old permission bits
mode=$(stat -c %a "$log") || die "cannot read the mode of $log"
mv "$log" "$log.1" || die "cannot rename $log"
{ : >"$log" && chmod "$mode" "$log"; } || die "cannot create $log"
exit 0
