#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates data/samples from real DICOM files shipped by Debian packages. The results are
# committed, so building Lightbox does not need this; it documents where every sample came from.
# Needs: dcmtk python3-pydicom python3-numpy dicom3tools netpbm.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=data/samples
PYD=/usr/lib/python3/dist-packages/pydicom/data/test_files
D3=/usr/share/doc/dicom3tools/examples
conv=build-aux/dicom-to-sample.py

PYD_SRC="python3-pydicom test data (NEMA WG04 derived)"
PYD_LIC="pydicom contributors, MIT (Expat) licence: see LICENSE.pydicom"
mkdir -p "$OUT/CT" "$OUT/MR" "$OUT/RGB"
$conv "$PYD/CT_small.dcm" "$OUT/CT/ct-head-128-16bit.png" --source "$PYD_SRC" --license "$PYD_LIC"
$conv "$PYD/CT_small.dcm" "$OUT/CT/ct-head-128-8bit.png" --8bit --source "$PYD_SRC" --license "$PYD_LIC"
$conv "$PYD/MR_small.dcm" "$OUT/MR/mr-head-64-16bit.png" --source "$PYD_SRC" --license "$PYD_LIC"
$conv "$D3/0051.dcm" "$OUT/MR/mr-head-360-16bit.png" --source "dicom3tools example 0051.dcm" \
  --license "2019 Chris Rorden, BSD-2-Clause: see LICENSE.dicom3tools"
$conv "$PYD/SC_rgb_rle.dcm" "$OUT/RGB/secondary-capture-rgb-100.png" --source "$PYD_SRC" --license "$PYD_LIC"
# The copyright paragraph for the data, then the licence text itself (the last paragraph).
{ sed -n '/^Files: \*/,/^$/p' /usr/share/doc/python3-pydicom/copyright
  awk '/^License: Expat$/{n++} n==3' /usr/share/doc/python3-pydicom/copyright; } > "$OUT/LICENSE.pydicom"
sed -n '/0051.dcm/,/^Files: [^d]/p' /usr/share/doc/dicom3tools/copyright > "$OUT/LICENSE.dicom3tools"
ls -lR "$OUT"
