#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Load on lightbox-store with wrk (Debian): GET of a sample image, then PROPFIND Depth 1 of its
# collection, each CONNECTIONS connections for DURATION seconds (2 wrk threads). Prints
# requests/s, p50/p99/max latency and error counts per method; exits 1 on any error or any
# status outside 2xx. Timing is printed, never asserted.
#   bench/load/wrk-store.sh LIGHTBOX_STORE IMAGE [DURATION_S=30] [CONNECTIONS=64]
set -euo pipefail
store_bin=$1 image=$2 duration=${3:-30} conns=${4:-64}
here=$(cd "$(dirname "$0")" && pwd)
command -v wrk >/dev/null || { echo "wrk not installed (build-aux/install-deps.sh)"; exit 77; }

root=$(mktemp -d "${TMPDIR:-/tmp}/lb-wrk-XXXXXX")
pid=
cleanup() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }; rm -rf "$root"; }
trap cleanup EXIT
mkdir -p "$root/images"
cp "$image" "$root/images/sample.png"
for i in $(seq 1 40); do cp "$image" "$root/images/copy-$i.png"; done

# --port 0: the store picks a free port and prints it.
"$store_bin" --port 0 "$root" > "$root.out" 2>&1 &
pid=$!
url=
for _ in $(seq 1 100); do
  url=$(grep -o 'http://[^ ]*' "$root.out" 2>/dev/null || true)
  [ -n "$url" ] && break
  sleep 0.05
done
rm -f "$root.out"
[ -n "$url" ] || { echo "lightbox-store did not start"; exit 1; }
case $url in */) ;; *) url=$url/ ;; esac

echo "lightbox-store $url  image $(stat -c %s "$image") bytes  ${conns} connections  ${duration}s per method"
status=0
for method in GET PROPFIND; do
  target=${url}images/sample.png
  [ $method = PROPFIND ] && target=${url}images/
  out=$(WRK_METHOD=$method wrk -t2 -c"$conns" -d"${duration}s" --timeout 10s \
        -s "$here/wrk-report.lua" "$target")
  line=$(grep '^RESULT' <<<"$out")
  echo "$line"
  for k in connect_err read_err write_err timeout_err non2xx; do
    v=$(grep -o "$k=[0-9]*" <<<"$line" | cut -d= -f2)
    [ "$v" = 0 ] || { echo "FAIL: $method $k=$v"; status=1; }
  done
  grep -q "requests=0 " <<<"$line" && { echo "FAIL: $method no request completed"; status=1; }
done
kill -0 "$pid" 2>/dev/null || { echo "FAIL: lightbox-store died under load"; status=1; }
exit $status
