#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# servers.sh COMMAND [ARGS…] -- start real test stores on 127.0.0.1, run COMMAND with their
# addresses in the environment, stop them afterwards (also on failure or signal).
#
# Started (as user nobody when run as root), each on a free port picked at run time:
#   nginx   LB_NGINX_HTML_URL (HTML autoindex, exact sizes)   LB_NGINX_JSON_URL (JSON autoindex)
#           LB_NGINX_DAV_URL  (WebDAV: PUT/MKCOL + PROPFIND)   LB_NGINX_TLS_URL  (HTML autoindex over
#           TLS with a self-signed certificate: LB_TLS_CERT; LB_TLS_OTHER_CERT is an unrelated one)
#           LB_VICTIM_GET_URL / LB_VICTIM_PUT_URL + LB_VICTIM_GET_PID / LB_VICTIM_PUT_PID:
#           single-process nginx instances (WebDAV) that a test may kill mid-transfer
#   apache  LB_APACHE_URL (mod_dav + autoindex; /private/ needs Basic auth: LB_AUTH_USER,
#           LB_AUTH_PASSWORD)
#   python  LB_PYTHON_URL (python3 -m http.server, read-only)
#   lightbox-store  LB_LIGHTBOX_STORE_URL, when $LIGHTBOX_STORE names the built binary
# LB_STORES_RUNDIR is the run directory; the document roots are $LB_STORES_RUNDIR/www-{nginx,
# apache,py}. LB_SEED_DIR holds the seed tree they were copied from.
# Needs: nginx libnginx-mod-http-dav-ext apache2 apache2-utils python3 dcmtk openssl curl.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# apache_dav_conf: the Apache mod_dav configuration, shared with tests/server/litmus.sh.
. "$HERE/apache-dav.sh"
SRC=${LB_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}
DICOM=$SRC/tests/data/dicom
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

R=$(mktemp -d "${TMPDIR:-/tmp}/lb-stores.XXXXXX")
chmod 755 "$R"
PIDS=()

stop_all() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [ "${LB_KEEP_STORES:-0}" = 1 ]; then echo "servers.sh: kept $R" >&2; else rm -rf "$R"; fi
  exit $rc
}
trap stop_all EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" = 0 ]; then
  AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  AS_NOBODY=()
fi

# N free TCP ports on 127.0.0.1: bound together (so they differ) and released just before use.
free_ports() {
  "$PY" - "$1" <<'PYEOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PYEOF
}

wait_http() { # URL NAME PID [curl options…]
  local url=$1 name=$2 pid=$3; shift 3
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || { echo "servers.sh: $name exited during start-up" >&2; return 1; }
    c=$(curl -s -o /dev/null -w '%{http_code}' "$@" "$url" || true)
    [ "$c" != 000 ] && return 0
    sleep 0.05
  done
  echo "servers.sh: $name did not answer at $url" >&2
  return 1
}

# ---- seed tree ---------------------------------------------------------------------------------
S=$R/seed
mkdir -p "$S/CT" "$S/MR" "$S/With Space" "$S/Ünïcödé" "$S/upload" "$S/private"
cp "$DICOM/CT_small.dcm" "$S/CT/"
cp "$DICOM/MR_small.dcm" "$S/MR/"
dcm2pnm +on2 +Wm -il "$S/CT/CT_small.dcm" "$S/CT/CT_small_16.png"
dcm2pnm +on  +Wm -il "$S/CT/CT_small.dcm" "$S/CT/CT_small_8.png"
dcm2pnm +on2 +Wm -il "$S/MR/MR_small.dcm" "$S/With Space/mr small #1.png"
cp "$S/CT/CT_small_8.png" "$S/Ünïcödé/bild&50%.png"
cp "$S/CT/CT_small_8.png" "$S/private/secret.png"
printf 'x\n' > "$S/upload/a_very_long_file_name_that_exceeds_fifty_characters_for_sure_0123456789.png"
printf 'q\n' > "$S/upload/quote\"and<lt>.txt"
printf 'h\n' > "$S/.hidden"
mkdir -p "$R/victim"
head -c $((48 * 1024 * 1024)) /dev/urandom > "$R/victim/big.bin"
mkdir -p "$R/victim/upload"
for s in nginx apache py lbs; do cp -a "$S" "$R/www-$s"; done
rm -rf "$R/www-nginx/private" "$R/www-py/private" "$R/www-lbs/private"

# ---- TLS material ------------------------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$R/tls.key" -out "$R/tls.crt" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$R/other.key" -out "$R/other.crt" 2>/dev/null

# ---- htpasswd ----------------------------------------------------------------------------------
AUTH_USER=alice
AUTH_PASSWORD=wonder-land-42
htpasswd -cbB "$R/htpasswd" "$AUTH_USER" "$AUTH_PASSWORD" 2>/dev/null

mkdir -p "$R/nginx/conf" "$R/nginx/logs" "$R/nginx/tmp" "$R/victim-get/logs" "$R/victim-get/tmp" \
         "$R/victim-put/logs" "$R/victim-put/tmp" "$R/apache/logs" "$R/apache/run" \
         "$R/apache/davlock" "$R/py"
chown -R 65534:65534 "$R" 2>/dev/null || true

start_nginx() { # PREFIX CONF NAME URL [curl options]
  local prefix=$1 conf=$2 name=$3 url=$4; shift 4
  "${AS_NOBODY[@]}" nginx -p "$prefix" -c "$conf" -e "$prefix/logs/error.log" \
    >"$prefix/logs/stdout" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  wait_http "$url" "$name" "$pid" "$@"
  LAST_PID=$pid
}

NGX_TEMPS='client_body_temp_path tmp/client_body; proxy_temp_path tmp/proxy; fastcgi_temp_path tmp/fastcgi; uwsgi_temp_path tmp/uwsgi; scgi_temp_path tmp/scgi;'

for attempt in 1 2 3; do
  read -r P_HTML P_JSON P_DAV P_TLS P_APACHE P_PY P_VGET P_VPUT <<<"$(free_ports 8)"
  cat > "$R/nginx/conf/nginx.conf" <<NGX
load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
daemon off; worker_processes 1; pid logs/nginx.pid; error_log logs/error.log info;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types; default_type application/octet-stream;
  access_log logs/access.log;
  $NGX_TEMPS
  client_max_body_size 512m;
  server { listen 127.0.0.1:$P_HTML; root $R/www-nginx; autoindex on; autoindex_exact_size on; }
  server { listen 127.0.0.1:$P_JSON; root $R/www-nginx; autoindex on; autoindex_format json; }
  server { listen 127.0.0.1:$P_DAV; root $R/www-nginx; autoindex on; autoindex_format json;
           dav_methods PUT DELETE MKCOL COPY MOVE; dav_ext_methods PROPFIND OPTIONS;
           create_full_put_path on; dav_access user:rw group:rw all:r; }
  server { listen 127.0.0.1:$P_TLS ssl; root $R/www-nginx; autoindex on; autoindex_exact_size on;
           ssl_certificate $R/tls.crt; ssl_certificate_key $R/tls.key; }
}
NGX
  for v in get put; do
    port=$P_VGET; [ $v = put ] && port=$P_VPUT
    # one process (master_process off) so that one kill stops the whole server at once
    cat > "$R/victim-$v/nginx.conf" <<NGX
load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
daemon off; master_process off; pid logs/nginx.pid; error_log logs/error.log info;
events { worker_connections 64; }
http {
  default_type application/octet-stream; access_log off;
  $NGX_TEMPS
  client_max_body_size 512m;
  server { listen 127.0.0.1:$port; root $R/victim; autoindex on; autoindex_format json;
           dav_methods PUT MKCOL; dav_ext_methods PROPFIND OPTIONS; }
}
NGX
  done
  chown -R 65534:65534 "$R/nginx" "$R/victim-get" "$R/victim-put" "$R/victim" 2>/dev/null || true
  if start_nginx "$R/nginx" conf/nginx.conf nginx "http://127.0.0.1:$P_DAV/" \
     && start_nginx "$R/victim-get" nginx.conf victim-get "http://127.0.0.1:$P_VGET/" \
     && { VGET_PID=$LAST_PID; true; } \
     && start_nginx "$R/victim-put" nginx.conf victim-put "http://127.0.0.1:$P_VPUT/" \
     && { VPUT_PID=$LAST_PID; true; }; then
    break
  fi
  [ $attempt = 3 ] && { cat "$R"/nginx/logs/error.log >&2 || true; exit 1; }
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; PIDS=(); sleep 0.2
done
wait_http "https://127.0.0.1:$P_TLS/" nginx-tls "${PIDS[0]}" --cacert "$R/tls.crt"

# ---- Apache ------------------------------------------------------------------------------------
{
  apache_dav_conf "$R/apache" "$P_APACHE" "$R/www-apache" authz_user authn_core authn_file \
    auth_basic
  cat <<APA
<Directory $R/www-apache/private>
  AuthType Basic
  AuthName "Lightbox test store"
  AuthBasicProvider file
  AuthUserFile $R/htpasswd
  Require valid-user
</Directory>
APA
} > "$R/apache/httpd.conf"
chown -R 65534:65534 "$R/apache" "$R/htpasswd" 2>/dev/null || true
"${AS_NOBODY[@]}" /usr/sbin/apache2 -f "$R/apache/httpd.conf" -DFOREGROUND >"$R/apache/logs/stdout" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$P_APACHE/" apache $! || { cat "$R/apache/logs/"* >&2; exit 1; }

# ---- python http.server ------------------------------------------------------------------------
"${AS_NOBODY[@]}" "$PY" -m http.server --bind 127.0.0.1 --directory "$R/www-py" "$P_PY" >"$R/py/log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$P_PY/" python $!

# ---- lightbox-store (our own server), if built -------------------------------------------------
if [ -n "${LIGHTBOX_STORE:-}" ] && [ -x "$LIGHTBOX_STORE" ]; then
  mkdir -p "$R/lbs"; chown 65534:65534 "$R/lbs" 2>/dev/null || true
  # the file exists before the loop reads it: the background job's redirection may come later,
  # and a sed that cannot open it would end this script (set -e) with status 2
  : >"$R/lbs/stdout"
  "${AS_NOBODY[@]}" "$LIGHTBOX_STORE" --port 0 "$R/www-lbs" >"$R/lbs/stdout" 2>"$R/lbs/stderr" &
  PIDS+=($!)
  for _ in $(seq 1 200); do
    LBS_URL=$(sed -n 's/^Serving .* at //p' "$R/lbs/stdout")
    [ -n "$LBS_URL" ] && break
    sleep 0.05
  done
  [ -n "$LBS_URL" ] || { echo "servers.sh: lightbox-store did not start" >&2; cat "$R/lbs/stderr" >&2; exit 1; }
  export LB_LIGHTBOX_STORE_URL=$LBS_URL
fi

export LB_STORES_RUNDIR=$R LB_SEED_DIR=$S
export LB_NGINX_HTML_URL=http://127.0.0.1:$P_HTML/
export LB_NGINX_JSON_URL=http://127.0.0.1:$P_JSON/
export LB_NGINX_DAV_URL=http://127.0.0.1:$P_DAV/
export LB_NGINX_TLS_URL=https://127.0.0.1:$P_TLS/
export LB_TLS_CERT=$R/tls.crt LB_TLS_OTHER_CERT=$R/other.crt
export LB_APACHE_URL=http://127.0.0.1:$P_APACHE/
export LB_AUTH_USER=$AUTH_USER LB_AUTH_PASSWORD=$AUTH_PASSWORD
export LB_PYTHON_URL=http://127.0.0.1:$P_PY/
export LB_VICTIM_GET_URL=http://127.0.0.1:$P_VGET/ LB_VICTIM_GET_PID=$VGET_PID
export LB_VICTIM_PUT_URL=http://127.0.0.1:$P_VPUT/ LB_VICTIM_PUT_PID=$VPUT_PID

if [ $# -eq 0 ]; then
  env | grep -E '^LB_(NGINX|APACHE|PYTHON|VICTIM|TLS|AUTH|STORES|SEED)' | sort
  echo "servers.sh: no command given; press Ctrl-C to stop" >&2
  while :; do sleep 3600; done
fi
"$@"
