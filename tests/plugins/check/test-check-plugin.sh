#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lightbox-cli check-plugin on the shipped plugins (every check passes) and on fixtures with
# one bug each (exactly the check that names the bug fails, exit status 1); --install copies
# a passing file in by rename and refuses a failing one.
set -u
cli="$LB_BUILD_ROOT/src/cli/lightbox-cli"
bad="$LB_BAD_PLUGIN_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

for so in "$LB_BUILD_ROOT"/plugins/*.so; do
  out=$("$cli" check-plugin "$so"); status=$?
  n_filters=$(grep -c '^io\.' <<<"$out")
  n_pass=$(grep -c '^  PASS  ' <<<"$out")
  if [ "$status" -ne 0 ] || grep -q '^  FAIL' <<<"$out" || [ "$n_pass" -ne $((n_filters * 7)) ]; then
    echo "not ok: $so (status $status, $n_filters filters, $n_pass checks passed)"; echo "$out"
    fail=1
  else
    echo "ok: $so, $n_filters filters, $n_pass checks passed"
  fi
done

expect_fail () {   # FILE CHECK PATTERN
  out=$("$cli" check-plugin "$bad/$1.so"); status=$?
  fails=$(grep '^  FAIL  ' <<<"$out")
  if [ "$status" -ne 1 ] || [ "$(grep -c . <<<"$fails")" -ne 1 ] \
     || ! grep -q "^  FAIL  $2: .*$3" <<<"$fails"; then
    echo "not ok: $1 should fail only “$2” with “$3” (status $status)"; echo "$out"
    fail=1
  else
    echo "ok: $1: $fails"
  fi
}
expect_fail bad-outside-band "writes outside the band" "row [0-9]* of the destination, outside the band of rows"
expect_fail bad-outside-columns "writes outside the band" "process() wrote column 8 of row 5, outside the write rectangle's columns 9..39"
expect_fail bad-alpha "alpha kept" "alpha at (0, 0) changed"
expect_fail bad-schedule "same output for any threads and bands" "differs from one band on one thread at"
expect_fail bad-cancel "cancel honoured" "after the pass was cancelled at row"
expect_fail bad-source "source untouched" "wrote into the source image"

# A plugin without a cancel point passes, and the verdict says so; one with a cancel point
# says it has one
out=$("$cli" check-plugin "$bad/bad-no-cancel.so"); status=$?
if [ "$status" -eq 0 ] && ! grep -q '^  FAIL' <<<"$out" \
   && grep -q "^  PASS  cancel honoured: no cancel point: process() never called lb_filter_band_rows_done()" <<<"$out"; then
  echo "ok: bad-no-cancel: $(grep 'cancel honoured' <<<"$out")"
else
  echo "not ok: bad-no-cancel should pass, saying it has no cancel point (status $status)"
  echo "$out"; fail=1
fi
out=$("$cli" check-plugin "$LB_BUILD_ROOT/plugins/lb-example-threshold.so")
if grep -q "^  PASS  cancel honoured: process() has a cancel point" <<<"$out"; then
  echo "ok: the example plugin has a cancel point"
else
  echo "not ok: the example plugin's cancel verdict"; echo "$out"; fail=1
fi

# A plugin that crashes or exits while being loaded (a constructor, the query function) gets
# a FAIL verdict for the load, naming the crash, and the checker itself ends normally; also
# when LIGHTBOX_PLUGIN_ISOLATION=none would load it straight into the checker.
expect_load_fail () {   # FILE PATTERN...
  file=$1; shift
  for isolation in untrusted none; do
    out=$(LIGHTBOX_PLUGIN_ISOLATION=$isolation "$cli" check-plugin "$file"); status=$?
    ok=1
    [ "$status" -eq 1 ] && [ "$(grep -c '^  FAIL  ' <<<"$out")" -eq 1 ] || ok=0
    for pattern in "$@"; do grep -q -- "$pattern" <<<"$out" || ok=0; done
    if [ $ok -eq 1 ]; then
      echo "ok: $(basename "$file") ($isolation): $(grep '^  FAIL' <<<"$out")"
    else
      echo "not ok: $(basename "$file") ($isolation) should fail to load with: $*"
      echo "status $status"; echo "$out"; fail=1
    fi
  done
}
expect_load_fail "$bad/bad-crash-ctor.so" \
  "^  FAIL  load: crashed while loading in a helper process (SIGSEGV, Segmentation fault, at address 0x20: no memory mapped there)" \
  "^  #0  bad_ctor_scribble\(\.[a-z]*\.[0-9]*\)\?+0x[0-9a-f]* (bad-crash-ctor\.so)$"
expect_load_fail "$LB_MISBEHAVE_LOAD_PLUGIN_DIR/misbehave-crash-query.so" \
  "^  FAIL  load: crashed while loading in a helper process (SIGSEGV, Segmentation fault)" \
  "^  #[0-9]*  *lb_filter_plugin_query+0x[0-9a-f]* (misbehave-crash-query\.so)$"
expect_load_fail "$LB_MISBEHAVE_LOAD_PLUGIN_DIR/misbehave-exit-ctor.so" \
  "^  FAIL  load: ended its process while loading in a helper process (exit status 4)"

# --install: a passing plugin replaces the installed one by rename (a new inode: a running
# Lightbox never maps a half-written file), mode 0644, no temporary file left behind
mkdir -m 0755 "$tmp/plugins"
example="$LB_BUILD_ROOT/plugins/lb-example-threshold.so"
printf 'old' > "$tmp/plugins/lb-example-threshold.so"
old_inode=$(stat -c %i "$tmp/plugins/lb-example-threshold.so")
if "$cli" check-plugin --install "$tmp/plugins" "$example" >/dev/null \
   && cmp -s "$example" "$tmp/plugins/lb-example-threshold.so" \
   && [ "$(stat -c %a "$tmp/plugins/lb-example-threshold.so")" = 644 ] \
   && [ "$(stat -c %i "$tmp/plugins/lb-example-threshold.so")" != "$old_inode" ] \
   && [ "$(ls -A "$tmp/plugins" | wc -l)" -eq 1 ]; then
  echo "ok: --install renamed the checked file into place"
else
  echo "not ok: --install"; ls -la "$tmp/plugins"; fail=1
fi
if "$cli" check-plugin --install "$tmp/plugins" "$bad/bad-alpha.so" >/dev/null \
   || [ -e "$tmp/plugins/bad-alpha.so" ] || [ "$(ls -A "$tmp/plugins" | wc -l)" -ne 1 ]; then
  echo "not ok: a failing plugin was installed"; fail=1
else
  echo "ok: a failing plugin is not installed"
fi
# and the installed copy loads from there
if LIGHTBOX_PLUGIN_PATH="$tmp/plugins" LIGHTBOX_FILTER_PATH="$tmp/none" XDG_DATA_HOME="$tmp/xdg" \
   "$cli" filters | grep -q "io.github.lightbox.example.threshold"; then
  echo "ok: the installed plugin loads"
else
  echo "not ok: the installed plugin does not load"; fail=1
fi
exit $fail
