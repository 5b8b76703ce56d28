#!/bin/sh
# push-config.sh ENV -- copy deploy/ENV's quaymaster config to the ENV hosts and reload.
set -eu
env=${1:?usage: push-config.sh staging|production}
dir="$(dirname "$0")/../deploy/$env"
case "$env" in
  staging) hosts="relay-stg-01 relay-stg-02" ;;
  production) hosts="relay-prd-01 relay-prd-02 relay-prd-03" ;;
  *) echo "unknown environment: $env" >&2; exit 2 ;;
esac
if [ -f "$dir/quaymaster.toml" ]; then
  src="$dir/quaymaster.toml"; dest=/etc/quaymaster/quaymaster.toml
else
  src="$dir/quaymaster.ini"; dest=/etc/quaymaster/quaymaster.ini
fi
for host in $hosts; do
  scp "$src" "$host:$dest.new"
  ssh "$host" "quaymaster check --config $dest.new && mv $dest.new $dest && systemctl reload quaymaster"
done
