#!/bin/sh
# How fast this machine is right now, in two reference loads, so that a duration measured here can
# be read against one measured elsewhere (the same suite took 444 s on one 2-core machine of this
# workplace and about 900 s on another; issue 28). Prints the wall and CPU seconds of:
#   - a fixed CPU loop in Deno (no I/O): the machine's speed for the test processes;
#   - five `docker run --rm` of verdict/busybox with no network: the engine's cost per container.
# Usage: scripts/machine_speed.sh   (needs deno, and docker with verdict/busybox built)
set -eu

cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.2f", ($2+$3+$4+$6+$7+$8) / hz}' /proc/stat; }

measure() {
  label=$1
  shift
  cpu0=$(cpu_seconds)
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  cpu1=$(cpu_seconds)
  awk -v s="$start" -v e="$end" -v c0="$cpu0" -v c1="$cpu1" -v l="$label" \
    'BEGIN { printf "%6.2f s wall %6.2f CPU-s (whole machine)  %s\n", e - s, c1 - c0, l }'
}

five_containers() {
  for _ in 1 2 3 4 5; do docker run --rm --pull=never --network=none verdict/busybox true; done
}

measure "reference CPU loop (Deno, 1e9 rounds of integer mixing)" \
  deno eval 'let h = 0; for (let i = 0; i < 1e9; i++) h = (Math.imul(h ^ i, 2654435761) + 1) | 0; console.log(h);'
measure "five docker run --rm of verdict/busybox (the engine's cost per container)" five_containers
