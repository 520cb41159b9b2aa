#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the example plugin the way plugins/README.md tells authors to: with the ONE installed
# header (copied alone into an include dir, as `meson install` lays it out) and GLib, no other
# Lightbox header or library; then loads it through lightbox-cli from a fresh plugin directory.
set -eu
cli="$LB_BUILD_ROOT/src/cli/lightbox-cli"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include/lightbox-1" "$tmp/plugins"
chmod 0755 "$tmp" "$tmp/plugins"
cp "$LB_SOURCE_ROOT/src/engine/lb-filter-plugin.h" "$tmp/include/lightbox-1/"

cc -shared -fPIC -O2 -fvisibility=hidden -Wall -Werror \
   -I"$tmp/include/lightbox-1" $(pkg-config --cflags glib-2.0 gmodule-2.0) \
   "$LB_SOURCE_ROOT/plugins/example/lb-threshold.c" \
   $(pkg-config --libs glib-2.0 gmodule-2.0) -o "$tmp/threshold.so"
install -m 0644 "$tmp/threshold.so" "$tmp/plugins/threshold.so"

# Only this directory: the in-tree build must not be what answers.
out=$(LIGHTBOX_PLUGIN_PATH="$tmp/plugins" LIGHTBOX_FILTER_PATH="$tmp/none" \
      XDG_DATA_HOME="$tmp/xdg" "$cli" filters)
echo "$out"
grep -q "^threshold  io.github.lightbox.example.threshold$" <<<"$out"
grep -q "origin: plugin $tmp/plugins/threshold.so (version 1.0)" <<<"$out"

# And it runs on a real image.
LIGHTBOX_PLUGIN_PATH="$tmp/plugins" LIGHTBOX_FILTER_PATH="$tmp/none" XDG_DATA_HOME="$tmp/xdg" \
  "$cli" filter --time "$LB_TEST_DATA/golden/in_64x48.png" "$tmp/out.png" threshold:level=40
test -s "$tmp/out.png"
echo "ok"

# The installed meson template builds the installed example source the same way.
mkdir -p "$tmp/pkgconfig" "$tmp/meson-example"
cat > "$tmp/pkgconfig/lightbox-plugin.pc" <<PC
includedir=$tmp/include
Name: lightbox-plugin
Description: the plugin ABI header, laid out as installed
Version: 1
Requires: glib-2.0, gmodule-2.0
Cflags: -I\${includedir}/lightbox-1
PC
cp "$LB_SOURCE_ROOT/plugins/example/lb-threshold.c" "$tmp/meson-example/"
cp "$LB_SOURCE_ROOT/plugins/example/plugin-meson.build" "$tmp/meson-example/meson.build"
PKG_CONFIG_PATH="$tmp/pkgconfig" meson setup "$tmp/meson-example/build" "$tmp/meson-example" >/dev/null
meson compile -C "$tmp/meson-example/build" >/dev/null
"$cli" check-plugin "$tmp/meson-example/build/threshold.so"
echo "ok: meson template"
