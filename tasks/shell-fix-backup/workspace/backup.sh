#!/bin/sh
# backup.sh SOURCE ARCHIVE -- archive the SOURCE folder into a gzip-compressed tarball.
# Used by the nightly job on the file servers:
#   sh /opt/backup/backup.sh /srv/share/projects /backup/projects-$(date +%F).tgz

SRC=$1
DEST=$2

if [ -z $SRC ] || [ -z $DEST ]; then
  echo "usage: backup.sh SOURCE ARCHIVE"
fi

cd $SRC

count=0
files=""
for f in $(find . -type f); do
  files="$files $f"
  count=$((count + 1))
done
for d in $(find . -type d -empty); do
  files="$files $d"
done

rm -f $DEST
tar czf $DEST $files
echo "backup: $count files"
