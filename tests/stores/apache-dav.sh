# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by tests/stores/servers.sh and tests/server/litmus.sh: the Apache mod_dav store both
# start on 127.0.0.1, configured in one place.
#
# apache_dav_conf ROOT PORT DOCROOT [MODULE…]: prints an httpd.conf for an Apache whose
# ServerRoot is ROOT (run/, logs/ and davlock/ must exist there) serving DOCROOT with autoindex
# and WebDAV on 127.0.0.1:PORT. Each MODULE (e.g. auth_basic) is loaded too, for configuration
# the caller appends to the output.
apache_dav_conf() {
  local root=$1 port=$2 www=$3 m
  shift 3
  cat <<APA
ServerRoot $root
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile run/httpd.pid
DefaultRuntimeDir run
Mutex file:run default
LoadModule mpm_event_module   /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module  /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module        /usr/lib/apache2/modules/mod_mime.so
LoadModule dir_module         /usr/lib/apache2/modules/mod_dir.so
LoadModule autoindex_module   /usr/lib/apache2/modules/mod_autoindex.so
LoadModule dav_module         /usr/lib/apache2/modules/mod_dav.so
LoadModule dav_fs_module      /usr/lib/apache2/modules/mod_dav_fs.so
APA
  for m in "$@"; do
    printf 'LoadModule %-18s /usr/lib/apache2/modules/mod_%s.so\n' "${m}_module" "$m"
  done
  cat <<APA
StartServers 1
ServerLimit 1
ThreadsPerChild 16
MaxRequestWorkers 16
TypesConfig /etc/mime.types
ErrorLog logs/error.log
LogLevel info
CustomLog logs/access.log common
DAVLockDB $root/davlock/lockdb
DocumentRoot $www
<Directory />
  Require all denied
</Directory>
<Directory $www>
  Require all granted
  Options +Indexes
  IndexOptions FancyIndexing NameWidth=* HTMLTable
  Dav On
</Directory>
APA
}
