#!/bin/sh
# backup.sh SOURCE ARCHIVE -- archive the SOURCE folder into a gzip-compressed tarball.
# Used by the nightly job on the file servers:
#   sh /opt/backup/backup.sh /srv/share/projects /backup/projects-$(date +%F).tgz
#
# Exit status: 0 done; 2 usage error (nothing touched); 1 the backup failed (ARCHIVE left as it
# was before, no temporary file left behind).
set -u

usage() {
  echo "usage: backup.sh SOURCE ARCHIVE${1:+ ($1)}" >&2
  exit 2
}
die() {
  echo "backup.sh: $*" >&2
  exit 1
}

[ $# -eq 2 ] || usage "expected 2 arguments, got $#"
src=$1
dest=$2
[ -n "$src" ] && [ -n "$dest" ] || usage "empty argument"
[ -d "$src" ] || usage "'$src' is not a folder"

# names starting with a dash must not be read as options
case $src in -*) src=./$src ;; esac
case $dest in -*) dest=./$dest ;; esac

dest_dir=$(dirname "$dest")
[ -d "$dest_dir" ] || die "destination folder '$dest_dir' does not exist"

# build the archive beside its destination, then move it into place in one rename
tmp=$(mktemp "$dest_dir/.backup.XXXXXX") || die "cannot write to '$dest_dir'"
trap 'rm -f "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

tar -C "$src" -czf "$tmp" . || die "tar failed; '$dest' left unchanged"
gzip -t "$tmp" || die "the new archive is damaged; '$dest' left unchanged"

# count regular files without splitting names (they may contain newlines)
count=$(find "$src" -type f -exec printf x \; | wc -c) || die "cannot count files in '$src'"
count=$((count + 0))

mv -f "$tmp" "$dest" || die "cannot move the archive to '$dest'"
echo "backup: $count files"
