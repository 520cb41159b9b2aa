#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin ABI (src/engine/lb-filter-plugin.h) has a plugin export one function,
# lb_filter_plugin_query(); every other dynamic symbol is a name a plugin leaks into Lightbox's
# symbol space. Checks the defined dynamic symbols of each plugin:
#   plugin-exports.sh NM --shipped A.so… [--fixtures B.so…]
# --shipped (the plugins installed to the plugin directory): exactly lb_filter_plugin_query;
# --fixtures (tests/engine's test plugins): one symbol, whose name starts with
#   lb_filter_plugin_query (broken-no-symbol exports a misspelt one on purpose).
# Prints one TAP line per plugin, and each offending symbol.
set -euo pipefail
nm=$1
shift
query=lb_filter_plugin_query

files=() kinds=()
kind=
for a in "$@"; do
  case $a in
    --shipped) kind=shipped ;;
    --fixtures) kind=fixture ;;
    *) [ -n "$kind" ] || { echo "usage: $0 NM --shipped A.so… [--fixtures B.so…]" >&2; exit 2; }
       files+=("$a") kinds+=("$kind") ;;
  esac
done
[ ${#files[@]} -gt 0 ] || { echo "no plugins given" >&2; exit 2; }

echo "1..${#files[@]}"
failed=0
for i in "${!files[@]}"; do
  f=${files[$i]} n=$((i + 1))
  # nm -D --defined-only: "ADDRESS TYPE NAME"; the name is the last field
  syms=$("$nm" -D --defined-only "$f" | awk 'NF >= 2 { print $NF }' | sort -u)
  bad=()
  if [ "${kinds[$i]}" = shipped ]; then
    grep -qx "$query" <<<"$syms" || bad+=("(missing) $query")
    while read -r s; do
      [ -z "$s" ] || [ "$s" = "$query" ] || bad+=("$s")
    done <<<"$syms"
  else
    [ "$(grep -c . <<<"$syms")" = 1 ] || bad+=("($(grep -c . <<<"$syms") symbols, not 1)")
    while read -r s; do
      [ -z "$s" ] || [[ $s == "$query"* ]] || bad+=("$s")
    done <<<"$syms"
  fi
  if [ ${#bad[@]} -eq 0 ]; then
    echo "ok $n - ${kinds[$i]} $(basename "$f"): $(tr '\n' ' ' <<<"$syms")"
  else
    echo "not ok $n - ${kinds[$i]} $(basename "$f"): ${#bad[@]} offending symbol(s)"
    printf '#   %s\n' "${bad[@]}"
    failed=1
  fi
done
exit $failed
