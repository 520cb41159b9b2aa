# SPDX-License-Identifier: GPL-3.0-or-later
# TAP for the shell tests, sourced as `. "$(dirname "$0")/../lib/tap.sh" NAME`: a scratch
# folder $T (lb-NAME.XXXXXX, removed on exit), ok/bad/check numbering the test points, and
# tap_end, which prints the plan last and fails when any point did.
T=$(mktemp -d "${TMPDIR:-/tmp}/lb-$1.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
n=0
ok()   { n=$((n+1)); echo "ok $n - $1"; }
bad()  { n=$((n+1)); fails=$((fails+1)); echo "not ok $n - $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
tap_end() { echo "1..$n"; [ $fails = 0 ]; }
