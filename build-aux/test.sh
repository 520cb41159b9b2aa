#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs everything, builds, and runs the whole test suite headless; then the same in a
# Debian 13 chroot (build-aux/trixie-chroot.sh). Prints each part's time and the total, and
# exits non-zero when any part failed. See .ci/run.
#   CI_SANITIZE=0  skip the extra ASan+UBSan build and test run (on by default)
#   CI_TRIXIE=0    skip the Debian 13 chroot part (on by default)
#   BUILD_DIR=DIR  build directory (default _build; DIR-asan for the sanitizer build)
set -euo pipefail
# One block, read before it runs: editing the file during a run cannot change the run.
{
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8

# Each phase appends "label<TAB>seconds<TAB>result" here; the outermost run prints the table
# (the chroot's run appends to the same list through trixie-chroot.sh).
OUTER=0
if [ -z "${LB_CI_TIMES:-}" ]; then
  OUTER=1
  LB_CI_TIMES=$(mktemp "${TMPDIR:-/tmp}/lb-ci-times.XXXXXX")
  trap 'rm -f "$LB_CI_TIMES"' EXIT
fi
export LB_CI_TIMES
T_START=$SECONDS
RELEASE="debian $(. /etc/os-release && echo "${VERSION_ID:-$VERSION_CODENAME}")"

phase() { # LABEL COMMAND…: run COMMAND, record its wall time and outcome, return its status
  local label=$1 t0=$SECONDS rc=0
  shift
  echo "=== $RELEASE: $label" >&2
  "$@" || rc=$?
  printf '%s\t%d\t%s\n' "$RELEASE $label" $((SECONDS - t0)) "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" >>"$LB_CI_TIMES"
  return $rc
}

build() { # DIR [meson setup options…]
  local dir=$1
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null || return
  else
    meson setup "$dir" "$@" || return
  fi
  meson compile -C "$dir"
}

headless() {
  # A private X server and a private session bus; GTK reaches AT-SPI through the a11y bus that
  # the session bus activates.
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- "$@"
}

BUILD=${BUILD_DIR:-_build}
SAN="${BUILD}-asan"
status=0
phase "install-deps" bash build-aux/install-deps.sh || status=$?
[ $status = 0 ] && { phase "build" build "$BUILD" || status=$?; }
[ $status = 0 ] && { phase "tests" headless meson test -C "$BUILD" --print-errorlogs --num-processes "$(nproc)" || status=$?; }
if [ "${CI_SANITIZE:-1}" = 1 ] && [ $status = 0 ]; then
  phase "asan build" build "$SAN" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug || status=$?
  [ $status = 0 ] && { phase "asan tests" headless meson test -C "$SAN" --setup asan --print-errorlogs --num-processes "$(nproc)" || status=$?; }
fi

# Debian 13 runs even when Debian 12 failed, so one CI run shows both.
if [ "${CI_TRIXIE:-1}" = 1 ] && [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = trixie ]; then
  echo "test.sh: this system is Debian 13 already; no Debian 13 chroot" >&2
elif [ "${CI_TRIXIE:-1}" = 1 ]; then
  t0=$SECONDS rc=0
  bash build-aux/trixie-chroot.sh || rc=$?
  printf '%s\t%d\t%s\n' "debian 13 chroot, all" $((SECONDS - t0)) "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" >>"$LB_CI_TIMES"
  [ $rc = 0 ] || status=$rc
fi

if [ $OUTER = 1 ]; then
  printf '\n%-32s %8s  %s\n' "phase" "time" "result"
  while IFS=$'\t' read -r label secs result; do
    printf '%-32s %5d:%02d  %s\n' "$label" $((secs / 60)) $((secs % 60)) "$result"
  done <"$LB_CI_TIMES"
  total=$((SECONDS - T_START))
  printf '%-32s %5d:%02d  %s\n' "total" $((total / 60)) $((total % 60)) "$([ $status = 0 ] && echo ok || echo FAILED)"
fi
exit $status
}
