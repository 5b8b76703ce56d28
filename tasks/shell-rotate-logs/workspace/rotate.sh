#!/bin/sh
# rotate.sh LOGFILE [KEEP] -- rotate LOGFILE, keeping KEEP old copies (see README.md).
LOG=$1
KEEP=${2:-5}

i=$KEEP
while [ $i -gt 1 ]; do
  prev=$((i-1))
  if [ -f $LOG.$prev.gz ]; then
    mv $LOG.$prev.gz $LOG.$i.gz
  fi
  i=$prev
done
gzip $LOG.1
mv $LOG $LOG.1
touch $LOG
echo "rotated $LOG"
