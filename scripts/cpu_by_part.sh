#!/bin/sh
# Where a step's CPU goes, by part: the Docker engine (dockerd, containerd, the shims and runc they
# start), the containers' own processes, the step's processes (Deno, the docker CLI calls, the
# CLI subprocesses), and the rest of the machine. Needs root, cgroup v1 with cpuacct mounted on
# its own, the engine's cgroupfs driver (containers under cpuacct/docker/) and the engine's pid
# file; elsewhere it says so and measures nothing. Used by .ci/run around the test step (issue 28).
#
#   scripts/cpu_by_part.sh start PID STATE  # the engine into a cgroup of its own, PID into another
#   scripts/cpu_by_part.sh report STATE     # CPU-seconds of each part since start, and their shares
#
# STATE is a file of the caller's (one per measurement, so two CI runs never share one). Only the
# engine the docker CLI reaches by default is moved: the dockerd of /var/run/docker.pid, its
# containerd, and the shims serving that containerd. Processes forked after the move inherit the
# cgroup; what they used before it is not counted. The engine and container figures cover every
# user of that engine, not only the step. CPU_BY_PART_ROOT and CPU_BY_PART_PIDFILE point it
# elsewhere (its test uses a folder of its own).
set -eu

root=${CPU_BY_PART_ROOT:-/sys/fs/cgroup/cpuacct}
pidfile=${CPU_BY_PART_PIDFILE:-/var/run/docker.pid}
engine=$root/verdict-engine
step=$root/verdict-step

usage() { cat "$1/cpuacct.usage"; }
ticks_ns() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.0f", ($2+$3+$4+$6+$7+$8) * 1e9 / hz}' /proc/stat; }

# Only where cpuacct is a hierarchy of its own: mounted with `cpu`, a cgroup would also change how
# the scheduler shares the cores, and the measurement would change what it measures.
available() {
  [ -w "$root" ] && [ -f "$root/cpuacct.usage" ] && [ ! -e "$root/cpu.shares" ] &&
    [ -d "$root/docker" ] && [ -s "$pidfile" ] && command -v pgrep >/dev/null
}

# The engine's processes: its dockerd, the containerd that dockerd started, and the shims whose
# command line names that containerd's socket.
engine_pids() {
  dockerd=$(cat "$pidfile")
  echo "$dockerd"
  for containerd in $(pgrep -P "$dockerd" -x containerd || true); do
    echo "$containerd"
    # dockerd starts it with --config FILE, whose first `address` is the socket.
    config=$(tr '\0' '\n' <"/proc/$containerd/cmdline" | sed -n '/^--config$/{n;p;}')
    socket=$(sed -n 's/^ *address = "\(.*\)"$/\1/p' "$config" 2>/dev/null | head -n 1)
    if [ -n "$socket" ]; then pgrep -f "containerd-shim.* -address $socket\$" || true; fi
  done
}

case "${1:-}" in
start)
  pid=${2:?usage: cpu_by_part.sh start PID STATE}
  state=${3:?usage: cpu_by_part.sh start PID STATE}
  rm -f "$state"
  if ! available; then
    echo "CPU by part: not measured (needs root, cgroup v1 with cpuacct on its own, Docker's cgroupfs driver and $pidfile)"
    exit 0
  fi
  pids=$(engine_pids)
  if [ "$(echo "$pids" | wc -l)" -lt 2 ]; then
    echo "CPU by part: not measured (no containerd runs under the dockerd of $pidfile)"
    exit 0
  fi
  mkdir -p "$engine" "$step"
  # Appended: a cgroup's procs file takes one process a write.
  for process in $pids; do
    echo "$process" >>"$engine/cgroup.procs" 2>/dev/null || true
  done
  echo "$pid" >"$step/cgroup.procs"
  echo "$(usage "$engine") $(usage "$step") $(usage "$root/docker") $(ticks_ns)" >"$state"
  ;;
report)
  state=${2:?usage: cpu_by_part.sh report STATE}
  if [ ! -s "$state" ]; then
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
  echo "CPU by part (whole machine, all cores; the engine's and the containers' figures count every user of the engine):"
  line "Docker engine: dockerd, containerd, shims, runc" "$e"
  line "the step's processes: Deno, docker CLI calls, subprocesses" "$s"
  line "the containers' own processes" "$c"
  line "the rest of the machine (kernel threads, other work)" "$rest"
  line "in all" "$t"
  ;;
*)
  echo "usage: cpu_by_part.sh start PID STATE | report STATE" >&2
  exit 2
  ;;
esac
