#!/bin/sh
# deno task install: runs scripts/install.ts with the permissions it needs and no more: read this
# checkout, write the install root (DENO_INSTALL_ROOT, default ~/.deno), run deno.
set -eu
root="${DENO_INSTALL_ROOT:-$HOME/.deno}"
exec deno run --quiet --no-prompt --allow-read=.,"$root" --allow-write="$root" \
  --allow-env=HOME,DENO_INSTALL_ROOT --allow-run=deno "$(dirname "$0")/install.ts"
