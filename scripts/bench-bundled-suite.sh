#!/usr/bin/env bash
# The bundled suite (tasks/) with the scripted model at concurrency 4 (`deno task eval`'s
# command), timed for the code before issue 16 (commit 1d657f2, checked out in a git worktree)
# and for the current working tree, alternating on the same machine, each run in a fresh state
# folder. Prints every round's wall times, the medians and the ratio before/after (issue 16's
# target: at least 3x).
#
# Usage: scripts/bench-bundled-suite.sh [ROUNDS]   (default 2; or ROUNDS=N in the environment)
#        BEFORE_REV=<commit> BEFORE_DIR=<folder> override what "before" is and where it lives.
#
# Each side runs its own tree's tasks/ (the CLI may only read inside its project tree); the
# script warns when they differ from the current tree's. Images (the base images and the
# derived workspace/grader images, cached by content) are shared by both sides and warm: one
# unmeasured run per side first builds whatever is missing, so the rounds time warm runs.
# A round's order alternates (before first, then after first) so neither side always runs
# on the heels of the other. The machine's load is printed with each run: other work on
# it skews both sides.
set -euo pipefail

ROUNDS="${1:-${ROUNDS:-2}}"
BEFORE_REV="${BEFORE_REV:-1d657f2}"
BEFORE_DIR="${BEFORE_DIR:-/tmp/verdict-before}"
AFTER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]]; then
  echo "ROUNDS must be a positive integer, got '$ROUNDS'" >&2
  exit 2
fi

if [ ! -e "$BEFORE_DIR/cli.ts" ]; then
  echo "creating the 'before' worktree at $BEFORE_DIR ($BEFORE_REV)" >&2
  git -C "$AFTER_DIR" worktree add --detach "$BEFORE_DIR" "$BEFORE_REV" >&2
fi
(cd "$BEFORE_DIR" && deno install --frozen --quiet)

if ! git -C "$AFTER_DIR" diff --quiet "$BEFORE_REV" -- tasks/; then
  echo "warning: tasks/ differs between $BEFORE_REV and the working tree;" \
    "each side runs its own" >&2
fi

# One timed run: prints the wall time in seconds on stdout; the CLI's output goes to a log.
timed_run() {
  local tree="$1" label="$2"
  local artifacts="$tree/tests/.artifacts"
  mkdir -p "$artifacts"
  local home log start end code
  home="$(mktemp -d "$artifacts/bench-suite-$label-XXXXXX")"
  log="$home.log"
  start="$(date +%s.%N)"
  set +e
  (cd "$tree" && deno run -P=verdict --quiet cli.ts eval tasks/ --concurrency 4 --home "$home") \
    >"$log" 2>&1
  code=$?
  set -e
  end="$(date +%s.%N)"
  if [ "$code" -ne 0 ]; then
    echo "warning: $label exited $code; its output:" >&2
    tail -n 20 "$log" >&2
  fi
  echo "  $label: $(grep -m1 -E ' trials: ' "$log" || echo '(no summary line)')" >&2
  rm -rf "$home" "$log"
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f\n", e - s }'
}

median() {
  sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "bundled suite, scripted model, --concurrency 4; $ROUNDS round(s); $(nproc) CPUs"
echo "before: $BEFORE_REV at $BEFORE_DIR; after: working tree at $AFTER_DIR" \
  "($(git -C "$AFTER_DIR" rev-parse --short HEAD) + uncommitted changes)"
echo "warm-up, not counted (builds any missing derived image; $(cut -d' ' -f1-3 /proc/loadavg))"
echo "warm-up: before $(timed_run "$BEFORE_DIR" before) s, after $(timed_run "$AFTER_DIR" after) s"

befores=()
afters=()
for ((round = 1; round <= ROUNDS; round++)); do
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  if ((round % 2 == 1)); then
    b="$(timed_run "$BEFORE_DIR" before)"
    a="$(timed_run "$AFTER_DIR" after)"
  else
    a="$(timed_run "$AFTER_DIR" after)"
    b="$(timed_run "$BEFORE_DIR" before)"
  fi
  befores+=("$b")
  afters+=("$a")
  echo "round $round ($(date -u +%H:%M:%SZ), load $load): before ${b} s, after ${a} s"
done

mb="$(printf '%s\n' "${befores[@]}" | median)"
ma="$(printf '%s\n' "${afters[@]}" | median)"
echo "median before ${mb} s, after ${ma} s over $ROUNDS round(s)"
awk -v b="$mb" -v a="$ma" 'BEGIN {
  r = b / a
  printf "ratio before/after %.2fx faster (target >= 3x: %s)\n", r, (r >= 3 ? "holds" : "not yet")
}'
