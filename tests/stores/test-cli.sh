#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lightbox-cli ls/get/put against the real servers of servers.sh (run through it).
# usage: servers.sh test-cli.sh PATH/TO/lightbox-cli
set -uo pipefail
CLI=$1
R=$LB_STORES_RUNDIR
. "$(dirname "$0")/../lib/tap.sh" cli-test
size_of() { stat -c %s "$1"; }

# ls: the exact format, sorted, directories with '/'
"$CLI" ls "$LB_NGINX_HTML_URL" > "$T/ls-root" 2>"$T/err"
printf 'CT/\nMR/\nWith Space/\nupload/\nÜnïcödé/\n' > "$T/want-root"
check "ls nginx html root" cmp -s "$T/ls-root" "$T/want-root"

# ls -R: every file line is "path<TAB>size" with the size on the server's disk
for v in LB_NGINX_DAV_URL LB_APACHE_URL LB_PYTHON_URL LB_NGINX_JSON_URL; do
  case $v in LB_APACHE_URL) www=www-apache;; LB_PYTHON_URL) www=www-py;; *) www=www-nginx;; esac
  if ! "$CLI" ls -R "${!v}CT/" > "$T/ls-r" 2>"$T/err"; then bad "ls -R $v: $(cat "$T/err")"; continue; fi
  good=1; lines=0
  while IFS=$'\t' read -r path size; do
    lines=$((lines+1))
    [ "$size" = "$(size_of "$R/$www/CT/$path")" ] || { echo "# $v: $path: $size"; good=0; }
  done < "$T/ls-r"
  [ $lines -ge 3 ] || good=0
  check "ls -R sizes match the disk ($v)" [ $good = 1 ]
done
"$CLI" ls -R "$LB_NGINX_DAV_URL" > "$T/ls-all" 2>"$T/err"
check "ls -R recurses (nginx WebDAV)" grep -qxF "With Space/mr small #1.png	$(size_of "$R/www-nginx/With Space/mr small #1.png")" "$T/ls-all"

# get: byte-identical, atomic
"$CLI" get "${LB_NGINX_HTML_URL}With%20Space/mr%20small%20%231.png" "$T/mr.png" 2>"$T/err"
check "get is byte-identical" cmp -s "$T/mr.png" "$R/www-nginx/With Space/mr small #1.png"
echo keep > "$T/keep.png"
"$CLI" get "${LB_NGINX_HTML_URL}CT/missing.png" "$T/keep.png" 2>"$T/err"; rc=$?
check "get of a missing file fails" [ $rc = 1 ]
check "get error names the URL and 404" grep -q "CT/missing.png: 404" "$T/err"
check "failed get leaves FILE untouched" [ "$(cat "$T/keep.png")" = keep ]
check "failed get leaves no temporary file" [ "$(ls -A "$T" | grep -c '^\.')" = 0 ]

# put: never replaces without --overwrite; --overwrite replaces the version just seen
# Random content after 8 NUL bytes: bare random bytes sniff as another type in about 1 upload in
# 200 (a leading '%' reads as text/x-matlab; cpio and TGA magic), and put then reports "stored
# as application/octet-stream" instead of "size verified".
random_file() { { head -c 8 /dev/zero; head -c $(($2 - 8)) /dev/urandom; } > "$1"; }
random_file "$T/one.bin" 3000; random_file "$T/two.bin" 4000
for v in LB_APACHE_URL LB_NGINX_DAV_URL; do
  case $v in LB_APACHE_URL) www=www-apache;; *) www=www-nginx;; esac
  target="${!v}upload/cli%20put.bin"; disk="$R/$www/upload/cli put.bin"
  "$CLI" put "$T/one.bin" "$target" > "$T/out" 2>"$T/err"; rc=$?
  check "put creates ($v)" [ $rc = 0 ]
  check "put content on disk ($v)" cmp -s "$T/one.bin" "$disk"
  check "put reports verification ($v)" grep -q "size verified\|size and ETag verified" "$T/out"
  "$CLI" put "$T/two.bin" "$target" > "$T/out" 2>"$T/err"; rc=$?
  check "put refuses to replace ($v)" [ $rc = 1 ]
  check "put says it exists ($v)" grep -q "already exists" "$T/err"
  check "refused put left the file ($v)" cmp -s "$T/one.bin" "$disk"
  "$CLI" put --overwrite "$T/two.bin" "$target" > "$T/out" 2>"$T/err"; rc=$?
  check "put --overwrite replaces ($v)" [ $rc = 0 ]
  check "overwritten content on disk ($v)" cmp -s "$T/two.bin" "$disk"
  "$CLI" put "$T/one.bin" "${!v}upload/" > "$T/out" 2>"$T/err"
  check "put to a folder URL appends the file name ($v)" cmp -s "$T/one.bin" "$R/$www/upload/one.bin"
done
"$CLI" put "$T/one.bin" "${LB_NGINX_DAV_URL}upload/weak.bin" > "$T/out" 2>&1
check "nginx put tells the guarantee is weaker" grep -q "cannot guarantee no-overwrite" "$T/out"
"$CLI" put "$T/one.bin" "${LB_APACHE_URL}upload/strong.bin" > "$T/out" 2>&1
check "apache put says the server enforced it" grep -q "enforced no-overwrite" "$T/out"
"$CLI" put "$T/one.bin" "${LB_PYTHON_URL}upload/nope.bin" > "$T/out" 2>"$T/err"; rc=$?
check "put to a read-only server fails" [ $rc = 1 ]
check "nothing written on the read-only server" [ ! -e "$R/www-py/upload/nope.bin" ]

# TLS and authentication
"$CLI" ls "$LB_NGINX_TLS_URL" > /dev/null 2>"$T/err"; rc=$?
check "self-signed TLS rejected" [ $rc = 1 ]
check "TLS error says so" grep -q "TLS" "$T/err"
check "self-signed TLS trusted with --ca-file" "$CLI" ls --ca-file "$LB_TLS_CERT" "$LB_NGINX_TLS_URL"
"$CLI" ls "${LB_APACHE_URL}private/" > /dev/null 2>"$T/err"; rc=$?
check "401 without credentials" [ $rc = 1 ]
check "401 error names the status" grep -q "401" "$T/err"
LIGHTBOX_PASSWORD=$LB_AUTH_PASSWORD "$CLI" ls --user "$LB_AUTH_USER" "${LB_APACHE_URL}private/" > "$T/out" 2>"$T/err"
check "credentials from the environment" grep -qxF "secret.png	$(size_of "$R/www-apache/private/secret.png")" "$T/out"

# filter straight from and to stores
"$CLI" filter "${LB_NGINX_JSON_URL}CT/CT_small_16.png" "$T/local.png" gaussian:sigma=1 > "$T/out" 2>"$T/err"; rc=$?
check "filter: store URL in, local file out" [ $rc = 0 ] && [ -s "$T/local.png" ]
src="${LB_APACHE_URL}CT/CT_small_8.png"; dst="${LB_APACHE_URL}upload/ct%20filtered.png"
disk="$R/www-apache/upload/ct filtered.png"
"$CLI" filter "$src" "$dst" gaussian:sigma=2 > "$T/out" 2>"$T/err"; rc=$?
check "filter: store URL in and out" [ $rc = 0 ] && [ -s "$disk" ]
check "filter upload carries the source URL" grep -aqF "$src" "$disk"
check "filter upload carries the filter chain" grep -aqF "gaussian:sigma=2" "$disk"
check "filter upload carries the Lightbox version" grep -aq "Lightbox [0-9]" "$disk"
cp "$disk" "$T/first.png"
"$CLI" filter "$src" "$dst" gaussian:sigma=3 > "$T/out" 2>"$T/err"; rc=$?
check "filter never replaces a store entry without --force" [ $rc = 1 ] && grep -q "already exists" "$T/err"
check "refused filter upload left the entry" cmp -s "$T/first.png" "$disk"
"$CLI" filter --force "$src" "$dst" gaussian:sigma=3 > "$T/out" 2>"$T/err"; rc=$?
check "filter --force replaces the version seen" [ $rc = 0 ] && grep -aqF "gaussian:sigma=3" "$disk"

tap_end
