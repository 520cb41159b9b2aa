#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the packages Lightbox needs to build, run and test on Debian 12 "bookworm" or
# Debian 13 "trixie" (the release is read from /etc/os-release; others are refused). Idempotent:
# only missing packages are installed, so a second run costs a dpkg query per package.
#   install-deps.sh          build + run + full test suite (default)
#   install-deps.sh --run    build + run only (README command one)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

# Package names that differ between the releases. ImageMagick is `imagemagick` on both (6 on
# Debian 12, command `convert-im6.q16`; 7 on Debian 13, command `magick`): the tests and the
# bench look for either at run time (lb_test_imagemagick(), lightbox-bench filters).
. /etc/os-release
case "${VERSION_CODENAME:-}" in
  bookworm) CLANG_RT=libclang-rt-14-dev ;;  # clang 14
  trixie) CLANG_RT=libclang-rt-19-dev ;;    # clang 19
  *) echo "install-deps.sh: ${PRETTY_NAME:-this system} is not supported (Debian 12 or 13)" >&2
     exit 1 ;;
esac

BUILD_PKGS=(
  gcc libc6-dev meson ninja-build pkg-config git
  # the system trust store, which GIO's TLS backend loads (Debian 13's minimal system lacks it)
  ca-certificates
  libgtk-4-dev libsoup-3.0-dev libpng-dev libgdk-pixbuf-2.0-dev libglib2.0-dev libglib2.0-bin
  libjson-glib-dev libxml2-dev libcairo2-dev
  # lightbox-store: yescrypt password hashes (libxcrypt), TLS for GIO (--tls-cert/--tls-key)
  libcrypt-dev glib-networking
  gettext desktop-file-utils appstream
  # runtime pieces GTK needs: fonts, icons (SVG loader), Mesa llvmpipe for the GL renderer
  fonts-dejavu-core adwaita-icon-theme librsvg2-common libgl1-mesa-dri libgtk-4-bin
  # the sample store is made from real DICOM files with dcmtk
  dcmtk python3-pydicom
  # DICOM codecs: GDCM's IJG build (JPEG 8/12/16-bit, lossless), CharLS (JPEG-LS), OpenJPEG
  libgdcm-dev libcharls-dev libopenjp2-7-dev
)
TEST_PKGS=(
  # headless session
  xvfb xauth dbus at-spi2-core
  # real pointer and key events through XTest (the measurement tools' UI test)
  xdotool
  # independent decoders and tools the tests compare against
  netpbm imagemagick curl python3-dogtail valgrind file
  # lightbox-bench filters times libvips' operators next to ImageMagick's
  libvips-tools
  # self-signed certificates made at test time (lightbox-store TLS tests)
  openssl
  # real servers for the store integration tests (all bound to 127.0.0.1)
  nginx libnginx-mod-http-dav-ext apache2 apache2-utils orthanc orthanc-dicomweb orthanc-gdcm litmus wrk
  # DICOM checks: dciodvfy (IOD validator), the 0051.dcm sample; numpy + PIL let pydicom decode
  # pixel data (JPEG 2000 too) as the independent reference
  dicom3tools python3-numpy python3-pil python3-gi
  # second opinions for the codec tests: GDCM's decoders (through pydicom) and gdcmconv
  libgdcm-tools python3-gdcm
  # sanitizer/fuzzer toolchain
  clang "$CLANG_RT"
)

pkgs=("${BUILD_PKGS[@]}")
[ "${1:-}" = "--run" ] || pkgs+=("${TEST_PKGS[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  # Keep the package scripts from starting nginx/apache/orthanc on their default ports:
  # the tests start their own instances on loopback.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  echo "Installing: ${missing[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
fi
