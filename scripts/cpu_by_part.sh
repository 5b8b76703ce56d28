#!/usr/bin/env bash
# Where a step's CPU goes, by part: the Docker engine (dockerd, containerd, the shims and runc they
# start), the containers' own processes, the step's processes (Deno, the docker CLI calls, the
# CLI subprocesses), and the rest of the machine. Needs root, cgroup v1 with cpuacct mounted on
# its own and the engine's cgroupfs driver (containers under cpuacct/docker/); elsewhere it says
# so and measures nothing. Used by .ci/run around the test step (issue 28).
#
#   scripts/cpu_by_part.sh start PID   # moves the engine into a cgroup of its own, PID into another
#   scripts/cpu_by_part.sh report      # CPU-seconds of each part since start, and their shares
#
# The engine's children inherit its cgroup when they are forked, so shims started before `start`
# stay unaccounted: call it before the step that is measured starts any container.
set -euo pipefail

root=/sys/fs/cgroup/cpuacct
state=/tmp/verdict-cpu-by-part
engine=$root/verdict-engine
step=$root/verdict-step

usage() { cat "$1/cpuacct.usage"; }
ticks_ns() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.0f", ($2+$3+$4+$6+$7+$8) * 1e9 / hz}' /proc/stat; }

# Only where cpuacct is a hierarchy of its own: mounted with `cpu`, a cgroup would also change how
# the scheduler shares the cores, and the measurement would change what it measures.
available() {
  [ -w "$root" ] && [ -f "$root/cpuacct.usage" ] && [ ! -e "$root/cpu.shares" ] &&
    [ -d "$root/docker" ] && command -v pgrep >/dev/null
}

case "${1:-}" in
start)
  pid=${2:?usage: cpu_by_part.sh start PID}
  if ! available; then
    echo "CPU by part: not measured (needs root, cgroup v1 with cpuacct on its own, Docker's cgroupfs driver)"
    rm -f "$state"
    exit 0
  fi
  mkdir -p "$engine" "$step"
  for process in $(pgrep -x dockerd) $(pgrep -x containerd) $(pgrep -f '^[^ ]*containerd-shim'); do
    echo "$process" >"$engine/cgroup.procs" 2>/dev/null || true
  done
  echo "$pid" >"$step/cgroup.procs"
  echo "$(usage "$engine") $(usage "$step") $(usage "$root/docker") $(ticks_ns)" >"$state"
  ;;
report)
  if [ ! -f "$state" ]; then
    echo "CPU by part: not measured"
    exit 0
  fi
  read -r engine0 step0 containers0 total0 <"$state"
  e=$(($(usage "$engine") - engine0))
  s=$(($(usage "$step") - step0))
  c=$(($(usage "$root/docker") - containers0))
  t=$(($(ticks_ns) - total0))
  rest=$((t - e - s - c))
  [ "$rest" -lt 0 ] && rest=0
  line() { awk -v ns="$2" -v all="$t" -v name="$1" 'BEGIN { share = all > 0 ? 100 * ns / all : 0; printf "%8.1f CPU-s %4.0f%%  %s\n", ns / 1e9, share, name }'; }
  echo "CPU by part (whole machine, all cores):"
  line "Docker engine: dockerd, containerd, shims, runc" "$e"
  line "the step's processes: Deno, docker CLI calls, subprocesses" "$s"
  line "the containers' own processes" "$c"
  line "the rest of the machine (kernel threads, other work)" "$rest"
  line "in all" "$t"
  ;;
*)
  echo "usage: cpu_by_part.sh start PID | report" >&2
  exit 2
  ;;
esac
