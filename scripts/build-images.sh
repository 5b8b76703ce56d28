#!/usr/bin/env bash
# Builds Verdict's task images from Debian packages only: no container registry is needed.
#
#   verdict/python:3.11  Debian bookworm minbase + python3, pytest, git, libfaketime, jq;
#                        `python` -> python3
#   verdict/busybox      a static busybox with its applets
#
# Usage: scripts/build-images.sh [--force] [IMAGE...]
#   An image that already exists, built by this recipe, is skipped unless --force is given.
#   Needs root (debootstrap), a running Docker engine, and the Debian packages
#   debootstrap and busybox-static (installed with apt-get when missing).
#   VERDICT_DEBIAN_MIRROR overrides the Debian mirror (default http://deb.debian.org/debian).
set -euo pipefail
# What the images hold is root's and read-only to others, whatever the caller's umask: the compiled
# tree a grader reads its bytecode from must not be writable by the code under test.
umask 022

force=0
wanted=()
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    verdict/*) wanted+=("$arg") ;;
    *) echo "build-images: unknown argument '$arg' (expected --force or an image name such as verdict/busybox)" >&2; exit 2 ;;
  esac
done
[ ${#wanted[@]} -gt 0 ] || wanted=(verdict/busybox verdict/python:3.11)

mirror="${VERDICT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
agent_uid=1000

log() { printf 'build-images: %s\n' "$*" >&2; }

if ! docker info >/dev/null 2>&1; then
  log "no Docker engine answers: start one (for example 'dockerd &') and run this again"
  exit 3
fi

need_package() {
  local command_name="$1" package="$2"
  if ! command -v "$command_name" >/dev/null 2>&1 && ! dpkg -s "$package" >/dev/null 2>&1; then
    log "installing $package"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >/dev/null
  fi
}

# Bumped whenever what an image holds changes: an image of an older recipe is built again.
# 2: libfaketime (an installed agent's clock is set to its run's start), file times fixed.
# 3: jq (the CI recipes' steps run in this image in a test, as on a GitHub runner, which has jq).
# 4: Python's bytecode checked by its source's hash, in the tree and under /usr/lib/verdict-pycache.
recipe=4
# Every file of an image carries this time (2023-11-14T22:13:20Z, the time Verdict stages files
# with), so that a listing reads the same whenever the image was built.
fixed_time=1700000000

exists() {
  [ "$(docker image inspect -f '{{index .Config.Labels "verdict.recipe"}}' "$1" 2>/dev/null)" = "$recipe" ]
}

# Adds the unprivileged user the agent runs as, and the folders every task image needs.
add_agent_user() {
  local root="$1"
  mkdir -p "$root/etc" "$root/tmp" "$root/workspace" "$root/home/agent" "$root/verdict"
  chmod 1777 "$root/tmp"
  touch "$root/etc/passwd" "$root/etc/group"
  grep -q '^root:' "$root/etc/passwd" || echo 'root:x:0:0:root:/root:/bin/sh' >> "$root/etc/passwd"
  grep -q '^root:' "$root/etc/group" || echo 'root:x:0:' >> "$root/etc/group"
  grep -q '^agent:' "$root/etc/passwd" || echo "agent:x:$agent_uid:$agent_uid:agent:/home/agent:/bin/sh" >> "$root/etc/passwd"
  grep -q '^agent:' "$root/etc/group" || echo "agent:x:$agent_uid:" >> "$root/etc/group"
  chown "$agent_uid:$agent_uid" "$root/workspace" "$root/home/agent"
}

import_folder() {
  local root="$1" image="$2"
  tar --numeric-owner --mtime="@$fixed_time" -C "$root" -c . | docker import \
    --change "LABEL verdict.recipe=$recipe" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'WORKDIR /workspace' \
    --change 'CMD ["/bin/sh"]' \
    - "$image" >/dev/null
  log "built $image ($(docker image inspect -f '{{.Size}}' "$image") bytes)"
}

build_busybox() {
  need_package busybox busybox-static
  local busybox_binary
  busybox_binary=$(command -v busybox)
  if ! file_is_static "$busybox_binary"; then
    log "$busybox_binary is not static: install the busybox-static package"
    exit 3
  fi
  local root
  root=$(mktemp -d)
  trap 'rm -rf "$root"' RETURN
  mkdir -p "$root/bin"
  cp "$busybox_binary" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  mkdir -p "$root/usr/bin" "$root/sbin" "$root/usr/sbin"
  add_agent_user "$root"
  import_folder "$root" verdict/busybox
}

file_is_static() {
  # A static ELF has no PT_INTERP program header; readelf comes with binutils, which may be absent,
  # so fall back to asking dpkg whether the binary is busybox-static's.
  if command -v readelf >/dev/null 2>&1; then
    ! readelf -l "$1" | grep -q 'INTERP'
  else
    dpkg -S "$(readlink -f "$1")" 2>/dev/null | grep -q '^busybox-static:'
  fi
}

# Bytecode for every module of the image's Python, checked against its source's hash, not its mtime:
# import_folder gives every file one mtime, which makes the caches Debian wrote stale, and a Python
# that compiles pytest at each start spends about 0.3 s on it. Written twice: in the tree, for the
# agent's own Python, and under /usr/lib/verdict-pycache, the only bytecode a grader reads (its
# PYTHONPYCACHEPREFIX, src/grading/grader_image.ts).
compile_python() {
  local root="$1" folders=(/usr/lib/python3.11 /usr/lib/python3/dist-packages)
  chroot "$root" python3 -m compileall -q -f --invalidation-mode checked-hash "${folders[@]}"
  chroot "$root" python3 -X pycache_prefix=/usr/lib/verdict-pycache -m compileall -q -f \
    --invalidation-mode checked-hash "${folders[@]}"
}

build_python() {
  need_package debootstrap debootstrap
  # Debian's archive keys: Debian has them, an Ubuntu machine (a GitHub runner) needs the package,
  # or debootstrap cannot check bookworm's Release file.
  if [ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
    need_package /nonexistent debian-archive-keyring
  fi
  if [ "$(id -u)" != 0 ]; then
    log "debootstrap needs root: run this script as root (sudo)"
    exit 3
  fi
  local root
  root=$(mktemp -d)
  trap 'rm -rf "$root"' RETURN
  log "debootstrap bookworm (minbase) from $mirror; this takes a few minutes"
  debootstrap --variant=minbase \
    --include=python3,python3-pytest,python-is-python3,git,ca-certificates,libfaketime,jq \
    bookworm "$root" "$mirror" >/tmp/verdict-debootstrap.log 2>&1 || {
      log "debootstrap failed; the last lines of /tmp/verdict-debootstrap.log:"
      tail -n 20 /tmp/verdict-debootstrap.log >&2
      exit 3
    }
  chroot "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc "$root"/usr/share/man "$root"/usr/share/locale
  add_agent_user "$root"
  compile_python "$root"
  import_folder "$root" verdict/python:3.11
}

for image in "${wanted[@]}"; do
  if [ "$force" = 0 ] && exists "$image"; then
    log "$image exists; skipped (--force rebuilds)"
    continue
  fi
  case "$image" in
    verdict/busybox) build_busybox ;;
    verdict/python:3.11) build_python ;;
    *) log "unknown image '$image' (known: verdict/busybox, verdict/python:3.11)"; exit 2 ;;
  esac
done
