#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# README command one: installs what Lightbox needs to build and run, builds it, serves a
# writable copy of data/samples with lightbox-store on 127.0.0.1, and opens Lightbox on it.
# The store stops when Lightbox closes.
set -euo pipefail
cd "$(dirname "$0")/.."

bash build-aux/install-deps.sh --run
BUILD=${BUILD_DIR:-_build}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD"
meson compile -C "$BUILD"

export GSETTINGS_SCHEMA_DIR="$PWD/$BUILD/data"
export LIGHTBOX_PLUGIN_PATH="$PWD/$BUILD/plugins"

STORE_ROOT="${XDG_DATA_HOME:-$HOME/.local/share}/lightbox/sample-store"
if [ ! -d "$STORE_ROOT" ]; then
  mkdir -p "$STORE_ROOT"
  cp -r data/samples/. "$STORE_ROOT/"
fi

if [ -x "$BUILD/src/server/lightbox-store" ]; then
  log=$(mktemp)
  "$BUILD/src/server/lightbox-store" --port 0 "$STORE_ROOT" > "$log" &
  store=$!
  trap 'kill $store 2>/dev/null; wait $store 2>/dev/null; rm -f "$log"' EXIT
  for _ in $(seq 100); do grep -q '^Serving ' "$log" && break; sleep 0.05; done
  line=$(grep -m1 '^Serving ' "$log") || { echo "lightbox-store did not start" >&2; exit 1; }
  url=${line##* at }
  echo "$line"
  "$BUILD/src/app/lightbox" "$url"
else
  "$BUILD/src/app/lightbox" "$STORE_ROOT"
fi
