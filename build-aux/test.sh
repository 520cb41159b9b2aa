#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs everything, builds, and runs the whole test suite headless. See .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8

bash build-aux/install-deps.sh

BUILD=${BUILD_DIR:-_build}
if [ -f "$BUILD/build.ninja" ]; then meson setup --reconfigure "$BUILD" >/dev/null; else meson setup "$BUILD"; fi
meson compile -C "$BUILD"

headless() {
  # A private X server and a private session bus; GTK reaches AT-SPI through the a11y bus that
  # the session bus activates.
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- "$@"
}

status=0
headless meson test -C "$BUILD" --print-errorlogs --num-processes "$(nproc)" || status=$?

if [ "${CI_SANITIZE:-1}" = 1 ] && [ $status -eq 0 ]; then
  SAN="${BUILD}-asan"
  [ -f "$SAN/build.ninja" ] || meson setup "$SAN" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug >/dev/null
  meson compile -C "$SAN"
  headless meson test -C "$SAN" --setup asan --print-errorlogs --num-processes "$(nproc)" || status=$?
fi
exit $status
