#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every translatable string of the files in po/POTFILES.in is translated in every language of
# po/LINGUAS, and every .po file is valid (msgfmt -c). Extraction uses the keywords of meson's
# "glib" gettext preset.
set -euo pipefail
src=${LB_SOURCE_ROOT:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"
grep -v '^#' po/POTFILES.in | sed '/^$/d' > "$tmp/files"
xgettext --from-code=UTF-8 --add-comments=TRANSLATORS --keyword=_ --keyword=N_ \
  --keyword=C_:1c,2 --keyword=NC_:1c,2 --keyword=g_dngettext:2,3 --keyword=ngettext:1,2 \
  --flag=N_:1:pass-c-format --flag=C_:2:pass-c-format --flag=g_dngettext:2:pass-c-format \
  --flag=g_strdup_printf:1:c-format --flag=g_string_printf:2:c-format \
  -f "$tmp/files" -o "$tmp/lightbox.pot"
n=$(grep -c '^msgid ' "$tmp/lightbox.pot")
echo "# $((n - 1)) strings in the template"
status=0
for lang in $(grep -v '^#' po/LINGUAS); do
  msgfmt -c -o /dev/null "po/$lang.po"
  # msgcmp fails for any string of the template missing or untranslated in the .po
  if ! msgcmp "po/$lang.po" "$tmp/lightbox.pot"; then
    echo "po/$lang.po is incomplete" >&2
    status=1
  fi
  stats=$(msgfmt --statistics -o /dev/null "po/$lang.po" 2>&1)
  echo "# $lang: $stats"
  case $stats in *untranslated*|*fuzzy*) echo "po/$lang.po has untranslated or fuzzy strings" >&2; status=1;; esac
done
exit $status
