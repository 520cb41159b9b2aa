#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer harnesses with clang + ASan + UBSan and runs each for SECONDS
# (default 600) on its seed corpus, two at a time. Crashes, leaks and UB abort the run; their
# inputs are left in _build-fuzz/artifacts/ and belong in a unit test.
#   build-aux/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-600}; shift || true
B=_build-fuzz
if [ ! -f $B/build.ninja ]; then
  CC=clang meson setup $B -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized -Dui_tests=false >/dev/null
fi
meson compile -C $B
mkdir -p $B/artifacts $B/work
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=($(cd $B/tests/fuzz && ls fuzz-* | grep -v '\.p$'))
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
run() {
  local h=$1 corpus=tests/fuzz/corpus/${1#fuzz-}
  mkdir -p $B/work/$h
  $B/tests/fuzz/$h -max_total_time="$SECONDS_EACH" -artifact_prefix=$B/artifacts/$h- \
    -print_final_stats=1 $B/work/$h "$corpus" > $B/work/$h.log 2>&1
  local rc=$?
  printf '%-22s exit %d  %s\n' "$h" $rc "$(grep -E '^stat::number_of_executed_units' $B/work/$h.log | awk '{print $2" runs"}')"
  return $rc
}
status=0
for ((i = 0; i < ${#harnesses[@]}; i += 2)); do
  run "${harnesses[$i]}" & p1=$!
  p2=
  if [ $((i + 1)) -lt ${#harnesses[@]} ]; then run "${harnesses[$((i + 1))]}" & p2=$!; fi
  wait $p1 || status=1
  [ -z "$p2" ] || wait $p2 || status=1
done
exit $status
