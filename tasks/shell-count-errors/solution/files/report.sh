#!/bin/sh
# report.sh [LOGDIR] -- error counts per service in LOGDIR's *.log and *.log.gz files.
# Output: "SERVICE COUNT" lines, highest count first, ties in byte order of the name.
set -u
dir=${1:-logs}
if [ ! -d "$dir" ]; then
  echo "report.sh: $dir is not a folder" >&2
  exit 2
fi

for file in "$dir"/*.log "$dir"/*.log.gz; do
  [ -f "$file" ] || continue            # an unmatched glob, or a folder named *.log
  case $file in
    *.gz) gzip -dc "$file" ;;
    *) cat "$file" ;;
  esac
  echo                                   # a last line without newline must not merge with the next file
done | awk '
  { sub(/\r$/, "") }
  ($2 == "[ERROR]" || $2 == "[FATAL]") && $3 ~ /^service=./ { count[substr($3, 9)]++ }
  END { for (name in count) print name, count[name] }
' | LC_ALL=C sort -k2,2nr -k1,1
