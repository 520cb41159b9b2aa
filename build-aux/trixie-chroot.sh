#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# trixie-chroot.sh [COMMAND…] -- build Lightbox and run the whole test suite in a minimal
# Debian 13 "trixie" chroot (or run COMMAND there instead, e.g. `bash` for a shell).
#
# The chroot is made with debootstrap from the Debian mirror that this machine's apt sources
# already name (build-aux/debian-mirrors.py reads them), so no host name lives in the tree.
# It is cached under $LB_CI_CACHE (default /var/cache/lightbox-ci) and made again when it is
# older than CI_TRIXIE_MAX_AGE days (default 7), so that trixie's point releases and security
# updates arrive; build-aux/install-deps.sh runs inside on every run and adds what a newer
# package list needs. The source tree is bind-mounted read-only at /src, the build directory
# lives in the cache (/build/<hash of the source path>, so a second run builds incrementally).
# Inside, build-aux/test.sh runs as root, as CI does on the host: the tests start their own
# servers on 127.0.0.1 and drop them to user nobody. /proc, /sys, /dev, /dev/pts, /dev/shm and
# a private /tmp are mounted for the run and unmounted on exit, failure or signal.
#
#   CI_TRIXIE_SANITIZE=1   also the ASan+UBSan build and run inside (default 0: the host's
#                          Debian 12 run has it)
#   CI_TRIXIE_MAX_AGE=N    days before the cached chroot is made again (0: always)
#   LB_CI_TIMES=FILE       append the phases' times here (build-aux/test.sh sets it)
#   APT_ETC=DIR            read the apt sources from DIR instead of /etc/apt (for testing)
# Needs root (re-runs itself under sudo), debootstrap (installed when missing) and python3.
# Fails, naming the mirror, when the mirror cannot be reached; it never skips silently.
set -euo pipefail
# The whole script is one block, read before it runs: editing the file during a run (it takes
# minutes) cannot change what the run does.
{
SRC=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=CI_TRIXIE_SANITIZE,CI_TRIXIE_MAX_AGE,LB_CI_TIMES,LB_CI_CACHE,APT_ETC \
    "$0" "$@"
fi

SUITE=trixie
ARCH=$(dpkg --print-architecture)
CACHE=${LB_CI_CACHE:-/var/cache/lightbox-ci}
MAX_AGE=${CI_TRIXIE_MAX_AGE:-7}
# What debootstrap installs and how the chroot is configured; a change here makes a new chroot.
RECIPE="v1 minbase"
KEY=$(printf '%s %s' "$RECIPE" "$ARCH" | sha256sum | cut -c1-12)
BASE=$CACHE/$SUITE-$ARCH-$KEY
ROOT=$BASE/root
BUILD_IN=/build/$(printf '%s' "$SRC" | sha256sum | cut -c1-12)
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() { printf 'trixie-chroot: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
record() { # LABEL SECONDS RESULT
  [ -n "${LB_CI_TIMES:-}" ] && printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$LB_CI_TIMES"
  return 0
}

mkdir -p "$CACHE"
# One run at a time per cache: the chroot's mount points and build directories are shared.
exec 9>"$CACHE/$SUITE.lock"
flock -n 9 || { say "waiting for another run holding $CACHE/$SUITE.lock"; flock 9; }

# ---- the mirror --------------------------------------------------------------------------------
mirrors=$(python3 "$SRC/build-aux/debian-mirrors.py") || die "cannot find a Debian mirror in ${APT_ETC:-/etc/apt}"
read -r _ MIRROR MIRROR_FROM <<<"$(grep '^main ' <<<"$mirrors")"
SECURITY=$(awk '$1 == "security" { print $2 }' <<<"$mirrors")

# apt's own proxy settings (apt.conf), for debootstrap and for apt inside the chroot.
eval "$(apt-config shell HTTP_PROXY Acquire::http::Proxy HTTPS_PROXY Acquire::https::Proxy)"
[ -n "${HTTP_PROXY:-}" ] && export http_proxy=$HTTP_PROXY
[ -n "${HTTPS_PROXY:-}" ] && export https_proxy=$HTTPS_PROXY

check_mirror() { # URI: its trixie Release file must be reachable and be Debian's
  local uri=$1 suite=$2 out
  case $uri in
    http://*|https://*) ;;
    *) die "the Debian mirror $uri (from $MIRROR_FROM) is not an http(s) URI; debootstrap needs one" ;;
  esac
  if ! out=$(curl -fsSL --retry 2 --max-time 60 "$uri/dists/$suite/Release" 2>&1); then
    die "cannot reach the Debian mirror $uri (from $MIRROR_FROM): $uri/dists/$suite/Release: ${out##*$'\n'}"
  fi
  grep -q '^Origin: Debian$' <<<"$out" || die "$uri/dists/$suite/Release (from $MIRROR_FROM) is not a Debian archive"
}

# ---- mounts, undone on every exit ---------------------------------------------------------------
MOUNTS=()
mnt() { # TARGET MOUNT-ARGS…: mount and remember for cleanup
  local target=$1; shift
  mkdir -p "$target"
  mount "$@" "$target"
  MOUNTS+=("$target")
}
cleanup() {
  local rc=$? p m
  # Processes left running inside the chroot (a test's server that outlived it) hold the mounts:
  # they were all started by this script, so end them by PID.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  for ((m = ${#MOUNTS[@]} - 1; m >= 0; m--)); do
    umount "${MOUNTS[m]}" 2>/dev/null || { say "${MOUNTS[m]} busy, detaching it"; umount -l "${MOUNTS[m]}" || rc=1; }
  done
  MOUNTS=()
  [ -n "${NEW:-}" ] && rm -rf --one-file-system "$NEW"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

unmount_stale() { # ROOTFS: mounts left by a run that was killed before its trap ran
  local m
  for m in $(awk -v r="$1/" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    say "unmounting $m, left by an earlier run"
    umount "$m" 2>/dev/null || umount -l "$m"
  done
}

mount_all() { # ROOTFS
  local r=$1
  unmount_stale "$r"
  mnt "$r/proc" -t proc -o nosuid,nodev,noexec proc
  mnt "$r/sys" -t sysfs -o ro,nosuid,nodev,noexec sysfs
  # Non-recursive binds: the host's /dev nodes and its pty instance, nothing under them.
  mnt "$r/dev" --bind /dev
  mnt "$r/dev/pts" --bind /dev/pts
  mnt "$r/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev tmpfs
  mnt "$r/tmp" -t tmpfs -o mode=1777,nosuid,nodev tmpfs
}

in_chroot() { # ROOTFS COMMAND…: a clean environment, C.UTF-8 (built into trixie's glibc)
  local r=$1; shift
  env -i PATH=$CHROOT_PATH HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive chroot "$r" "$@"
}

write_config() { # ROOTFS: apt sources from the host's mirrors, proxy, no service start-up
  local r=$1
  rm -f "$r/etc/apt/sources.list"
  {
    printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$MIRROR" "$SUITE" "$SUITE"
    [ -n "$SECURITY" ] && printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$SECURITY" "$SUITE"
  } >"$r/etc/apt/sources.list.d/debian.sources"
  {
    echo 'APT::Install-Recommends "false"; APT::Install-Suggests "false"; Acquire::Retries "3";'
    [ -n "${HTTP_PROXY:-}" ] && printf 'Acquire::http::Proxy "%s";\n' "$HTTP_PROXY"
    [ -n "${HTTPS_PROXY:-}" ] && printf 'Acquire::https::Proxy "%s";\n' "$HTTPS_PROXY"
  } >"$r/etc/apt/apt.conf.d/90lightbox-ci"
  chmod 600 "$r/etc/apt/apt.conf.d/90lightbox-ci"
  # The package scripts of nginx, apache2 and orthanc must not start daemons on their default
  # ports: the tests start their own on loopback.
  printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
  chmod 755 "$r/usr/sbin/policy-rc.d"
  # A throw-away system: dpkg need not fsync every file it unpacks.
  echo force-unsafe-io >"$r/etc/dpkg/dpkg.cfg.d/lightbox-ci-unsafe-io"
  cp -L /etc/resolv.conf "$r/etc/resolv.conf"
}

# ---- the chroot: cached, or made now ------------------------------------------------------------
t0=$SECONDS
fresh=0
if [ -f "$BASE/stamp" ] && [ "$MAX_AGE" -gt 0 ] &&
   [ $(( $(date +%s) - $(stat -c %Y "$BASE/stamp") )) -lt $((MAX_AGE * 86400)) ]; then
  say "using the cached chroot $ROOT (made $(date -r "$BASE/stamp" '+%F %R'))"
else
  check_mirror "$MIRROR" "$SUITE"
  [ -n "$SECURITY" ] && check_mirror "$SECURITY" "$SUITE-security"
  command -v debootstrap >/dev/null || apt-get -o DPkg::Lock::Timeout=900 install -y -qq debootstrap >/dev/null
  [ -e /usr/share/debootstrap/scripts/$SUITE ] || die "this debootstrap does not know $SUITE; upgrade it (Debian 12: 1.0.128+nmu2+deb12u1 or later)"
  say "making a $SUITE chroot from $MIRROR (from $MIRROR_FROM)"
  NEW=$(mktemp -d "$CACHE/.new-XXXXXX")
  include=()   # apt needs the trust store before install-deps.sh adds it, on an https mirror
  [ "${MIRROR#https:}" != "$MIRROR" ] && include=(--include=ca-certificates)
  debootstrap --variant=minbase "${include[@]}" --components=main \
    --keyring=/usr/share/keyrings/debian-archive-keyring.gpg "$SUITE" "$NEW/root" "$MIRROR" \
    >"$NEW/debootstrap.log" 2>&1 ||
    { tail -n 20 "$NEW/debootstrap.log" >&2; die "debootstrap of $SUITE from $MIRROR (from $MIRROR_FROM) failed"; }
  write_config "$NEW/root"
  # Replace the old chroot (and any of an older recipe) only once the new one is complete.
  for old in "$CACHE/$SUITE-$ARCH"-*; do
    [ -d "$old" ] && rm -rf --one-file-system "$old"
  done
  touch "$NEW/stamp"
  mv "$NEW" "$BASE"
  NEW=
  fresh=1
fi
write_config "$ROOT"   # the host's mirror or proxy may have changed since the chroot was made
mkdir -p "$ROOT/src" "$ROOT$BUILD_IN"
mount_all "$ROOT"
mnt "$ROOT/src" --bind "$SRC"
mount -o remount,bind,ro "$ROOT/src"
record "debian 13 debootstrap" $((SECONDS - t0)) "$([ $fresh = 1 ] && echo made || echo cached)"

rc=0
if [ $# -gt 0 ]; then
  in_chroot "$ROOT" "$@" || rc=$?
else
  in_chroot "$ROOT" env LB_CI_TIMES=/tmp/lb-ci-times CI_TRIXIE=0 \
    CI_SANITIZE="${CI_TRIXIE_SANITIZE:-0}" BUILD_DIR="$BUILD_IN" \
    bash /src/build-aux/test.sh || rc=$?
  [ -f "$ROOT/tmp/lb-ci-times" ] && [ -n "${LB_CI_TIMES:-}" ] && cat "$ROOT/tmp/lb-ci-times" >>"$LB_CI_TIMES"
  # the downloaded packages (about 500 MB) are not needed once installed
  in_chroot "$ROOT" apt-get clean || true
fi
exit $rc
}
