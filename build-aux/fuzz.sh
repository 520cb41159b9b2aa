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
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=($(cd tests/fuzz && ls fuzz-*.c | sed 's/\.c$//'))
# Only the harnesses (and what they link): the rest of the tree is not needed here.
meson compile -C $B "${harnesses[@]}"
mkdir -p $B/artifacts $B/work
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
run() {
  local h=$1 corpus=tests/fuzz/corpus/${1#fuzz-} rc=0
  mkdir -p $B/work/$h
  $B/tests/fuzz/$h -max_total_time="$SECONDS_EACH" -artifact_prefix=$B/artifacts/$h- \
    -print_final_stats=1 $B/work/$h "$corpus" > $B/work/$h.log 2>&1 || rc=$?
  # Executions, edges covered (cov) and coverage features (ft) at the end of the run.
  printf '%-22s exit %d  %s runs  %s\n' "$h" $rc \
    "$(grep -E '^stat::number_of_executed_units' $B/work/$h.log | awk '{print $2}')" \
    "$(grep -E 'DONE|#[0-9]+.*(pulse|NEW|REDUCE)' $B/work/$h.log | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')"
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
