#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# WebDAV conformance: Debian's litmus (groups basic, copymove, http) against lightbox-store,
# and against Apache mod_dav as the reference, both on 127.0.0.1 with ports picked at run time.
#   litmus.sh /path/to/lightbox-store
# Fails on any litmus FAIL. Apache runs as user nobody (setpriv) when this runs as root.
set -euo pipefail

STORE=${1:?usage: litmus.sh LIGHTBOX_STORE}
LITMUS=${LITMUS:-/usr/bin/litmus}
APACHE=${APACHE:-/usr/sbin/apache2}
[ -x "$LITMUS" ] || { echo "litmus not installed ($LITMUS): build-aux/install-deps.sh installs it" >&2; exit 1; }

W=$(mktemp -d /tmp/lb-litmus.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT

# apache_dav_conf: the mod_dav reference's configuration, shared with the stores tests.
. "$(cd "$(dirname "$0")" && pwd)/../stores/apache-dav.sh"

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# run_litmus NAME URL: runs the three groups, prints the summaries, returns 1 on any failure.
run_litmus() {
  local name=$1 url=$2 out=$W/$1.litmus.out rc=0
  mkdir -p "$W/$name-cwd"
  # litmus writes debug.log/child.log into its working directory.
  (cd "$W/$name-cwd" && TESTS="basic copymove http" timeout 300 "$LITMUS" "$url") >"$out" 2>&1 || rc=$?
  echo "== litmus against $name ($url)"
  grep -E '^<- summary|FAIL' "$out" || true
  if [ $rc -ne 0 ] || grep -q 'FAIL' "$out" || ! grep -q "summary for \`http'" "$out" ||
     grep -E '^<- summary' "$out" | grep -qv ' 0 failed'; then
    echo "litmus against $name FAILED (exit $rc); full output:"
    cat "$out"
    return 1
  fi
  return 0
}

status=0

# --- lightbox-store ---------------------------------------------------------------------
mkdir -p "$W/store-root"
# the file exists before the loop below reads it (the job's redirection may come later, and a
# sed that cannot open it would end this script with status 2)
: >"$W/store.out"
"$STORE" --port 0 --access-log "$W/store-access.log" "$W/store-root" >"$W/store.out" 2>"$W/store.err" &
PIDS+=($!)
url=
# up to 30 s: on a loaded machine (parallel tests, sanitizers) start-up can take seconds; the
# loop ends as soon as the server prints its URL or dies
for _ in $(seq 300); do
  url=$(sed -n 's/^Serving .* at \(http[^ ]*\)$/\1/p' "$W/store.out")
  [ -n "$url" ] && break
  kill -0 "${PIDS[-1]}" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "lightbox-store did not start:"; cat "$W/store.out" "$W/store.err"; exit 1
fi
case "$url" in http://127.0.0.1:*) ;; *) echo "unexpected URL $url"; exit 1 ;; esac
run_litmus lightbox-store "$url" || status=1
# Nothing litmus did may leave an upload temporary behind.
if find "$W/store-root" -name '.lbput-*' | grep -q .; then
  echo "upload temporaries left behind:"; find "$W/store-root" -name '.lbput-*'; status=1
fi

# --- Apache mod_dav reference ---------------------------------------------------------------
if [ ! -x "$APACHE" ]; then
  echo "apache2 not installed ($APACHE): the reference run is required"; exit 1
fi
R=$W/apache
mkdir -p "$R/run" "$R/logs" "$R/davlock" "$R/www"
AS_NOBODY=()
if [ "$(id -u)" -eq 0 ]; then
  AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 755 "$W"
fi
started=
for attempt in 1 2 3; do
  port=$(free_port)
  apache_dav_conf "$R" "$port" "$R/www" >"$R/httpd.conf"
  [ ${#AS_NOBODY[@]} -gt 0 ] && chown -R 65534:65534 "$R"
  "${AS_NOBODY[@]}" "$APACHE" -f "$R/httpd.conf" -DFOREGROUND >"$R/logs/stdout" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 300); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then started=$port; break; fi
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$started" ] && break
  echo "apache did not start on port $port (attempt $attempt):"; cat "$R/logs/stdout" "$R/logs/error.log" 2>/dev/null || true
done
[ -n "$started" ] || exit 1
run_litmus apache-mod_dav "http://127.0.0.1:$started/" || status=1

exit $status
