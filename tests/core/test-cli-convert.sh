#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lightbox-cli convert: keeps depth and alpha, refuses bad input with a message and no output.
set -euo pipefail
CLI="$LB_BUILD_ROOT/src/cli/lightbox-cli"
S="$LB_TEST_DATA/pngsuite"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
n=0; fail() { echo "not ok $n - $*"; exit 1; }
ok() { echo "ok $n - $*"; }
echo "1..6"

n=1; "$CLI" convert "$S/basn0g16.png" "$T/g16.png"
file "$T/g16.png" | grep -q "16-bit grayscale" || fail "16-bit gray stays 16-bit: $(file "$T/g16.png")"
[ "$(pngtopam "$S/basn0g16.png" | md5sum)" = "$(pngtopam "$T/g16.png" | md5sum)" ] || fail "pixels of 16-bit gray"
ok "16-bit gray kept"

n=2; "$CLI" convert "$S/basn6a16.png" "$T/rgba16.png"
file "$T/rgba16.png" | grep -q "16-bit/color RGBA" || fail "RGBA16 kept: $(file "$T/rgba16.png")"
ok "16-bit RGBA kept"

n=3; "$CLI" convert "$S/tbbn3p08.png" "$T/pal.png"   # palette + tRNS → RGBA8
file "$T/pal.png" | grep -q "8-bit/color RGBA" || fail "palette with tRNS gains alpha: $(file "$T/pal.png")"
ok "palette with tRNS becomes RGBA"

n=4; pngtopam "$S/basn2c08.png" | pnmtojpeg > "$T/in.jpg" 2>/dev/null
"$CLI" convert "$T/in.jpg" "$T/jpg.png"
[ "$(jpegtopnm "$T/in.jpg" 2>/dev/null | md5sum)" = "$(pngtopam "$T/jpg.png" | md5sum)" ] || fail "JPEG through GdkPixbuf"
ok "JPEG converted"

n=5; echo keep > "$T/out.png"
if "$CLI" convert "$S/xcrn0g04.png" "$T/out.png" 2> "$T/err"; then fail "corrupt input accepted"; fi
grep -q "xcrn0g04.png" "$T/err" || fail "error names the file: $(cat "$T/err")"
[ "$(cat "$T/out.png")" = keep ] || fail "existing output was touched"
[ "$(ls "$T" | grep -c out)" = 1 ] || fail "a temporary file was left behind: $(ls "$T")"
ok "corrupt input: exit $?, message, output untouched"

n=6; if "$CLI" convert "$T/missing.png" "$T/x.png" 2> "$T/err"; then fail "missing input accepted"; fi
[ -e "$T/x.png" ] && fail "output created for missing input"
grep -q "missing.png" "$T/err" || fail "error names the file"
ok "missing input refused"
