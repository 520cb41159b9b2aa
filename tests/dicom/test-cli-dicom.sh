#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lightbox-cli on DICOM: convert and filter take .dcm files (uncompressed and compressed, grey
# and colour) and store URLs, their values are pydicom's (check-png-values.py); bad files fail with the reason and write nothing; every path
# `ls -R` prints below a local folder (a series, a DICOMDIR file-set) works with `get` and
# `convert`. With LB_DICOMWEB_URL set (orthanc-run.sh) the same round trip runs against Orthanc.
#   test-cli-dicom.sh LIGHTBOX-CLI
set -uo pipefail
CLI=$1
PY=/usr/bin/python3
HERE=$(dirname "$0")
D=$LB_TEST_DATA/dicom
. "$HERE/../lib/tap.sh" cli-dicom
quiet() { "$@" > /dev/null; }   # a command whose listing would break the TAP stream
values() { "$PY" "$HERE/check-png-values.py" "$@" > "$T/values.log" 2>&1; local rc=$?
           [ $rc = 77 ] && return 0; cat "$T/values.log" | sed 's/^/# /'; return $rc; }

if [ -z "${LB_DICOMWEB_URL:-}" ]; then
  # convert: every uncompressed syntax, against pydicom
  for f in CT_small MR_small MR_small_bigendian MR_small_implicit MR_small_expb ExplVR_BigEnd \
           image_dfl SC_rgb_small_odd SC_rgb_jpeg_dcmd; do
    "$CLI" convert "$D/$f.dcm" "$T/$f.png" 2>"$T/err"
    check "convert $f.dcm: pydicom's values" values "$D/$f.dcm" "$T/$f.png"
  done
  # convert: compressed syntaxes and colour models, decoded here, against pydicom's decoders
  # (GDCM and RLE handlers) and colour conversion; the value model is lossy where the file is
  P=/usr/lib/python3/dist-packages/pydicom/data/test_files
  for src in "$D/JPEG2000.dcm" "$D/SC_rgb_rle_2frame.dcm" "$D/SC_rgb_jpeg.dcm" \
             "$D/SC_ybr_full_422_uncompressed.dcm" "$P/JPEG-lossy.dcm" "$P/JPGExtended.dcm" \
             "$P/MR_small_RLE.dcm" "$P/MR_small_jp2klossless.dcm" "$P/MR_small_jpeg_ls_lossless.dcm" \
             "$P/SC_rgb_jpeg_dcmtk.dcm" "$P/SC_rgb_dcmtk_+eb+cy+s2.dcm"; do
    [ -f "$src" ] || continue
    f=$(basename "$src" .dcm)
    "$CLI" convert "$src" "$T/$f.png" 2>"$T/err"
    check "convert $f.dcm: pydicom's values" values "$src" "$T/$f.png"
  done
  # filter: an identity step keeps pydicom's values; a blur runs
  LIGHTBOX_PLUGIN_PATH=${LIGHTBOX_PLUGIN_PATH:-} "$CLI" filter "$D/CT_small.dcm" "$T/median0.png" \
    median:radius=0 2>"$T/err"
  check "filter CT_small.dcm median:radius=0: pydicom's values" values "$D/CT_small.dcm" "$T/median0.png"
  "$CLI" filter "$D/MR_small_bigendian.dcm" "$T/blur.png" blur:size=3 2>"$T/err"
  check "filter a big endian .dcm with blur" [ -s "$T/blur.png" ]

  # bad input: the reason, no output, an existing output untouched
  echo keep > "$T/keep.png"
  "$CLI" convert "$D/MR_truncated.dcm" "$T/keep.png" 2>"$T/err"; rc=$?
  check "convert a truncated .dcm fails" [ $rc = 1 ]
  check "the error names the file and the shortfall" \
    grep -q "MR_truncated.dcm: PixelData has 8192 bytes, only 8130 are left" "$T/err"
  check "the output is untouched" [ "$(cat "$T/keep.png")" = keep ]
  "$CLI" convert "$D/badVR.dcm" "$T/bad.png" 2>"$T/err"; rc=$?
  check "NumberOfFrames \"1A\" is refused by name" grep -q 'NumberOfFrames "1A" is not a number' "$T/err"
  check "and nothing is written" [ ! -e "$T/bad.png" ]
  "$CLI" convert "$D/no_meta.dcm" "$T/bad.png" 2>"$T/err"
  check "a .dcm that is no DICOM says so" grep -q "not a DICOM file" "$T/err"
  "$CLI" convert "$D/rtplan.dcm" "$T/bad.png" 2>"$T/err"
  check "an object without pixels says so" grep -q "has no PixelData" "$T/err"

  # a folder: a 5-slice series, a DICOMDIR file-set, a plain file
  mkdir -p "$T/folder/series"
  if "$PY" "$HERE/make-series.py" "$T/folder/series" 5 64 > /dev/null 2>&1; then :; fi
  cp -r "$D/dicomdirtests" "$T/folder/cd"
  echo hello > "$T/folder/notes.txt"
  base="file://$T/folder"
  "$CLI" ls -R "$base" > "$T/ls" 2>"$T/err"
  check "ls -R a folder of DICOM" [ -s "$T/ls" ]
  check "ls shows the series' patient" grep -qx 'series/?patient=P-0042/' "$T/ls"
  check "ls shows the DICOMDIR's patients" grep -qx 'cd/?patient=77654033/' "$T/ls"
  check "ls lists the DICOMDIR's images by their files" grep -q "^cd/77654033/CR1/6154	" "$T/ls"
  files=0; got=0; conv=0
  while IFS=$'\t' read -r path size; do
    case $path in */) continue;; esac
    files=$((files+1))
    if "$CLI" get "$base/$path" "$T/got" 2>"$T/get-err" && cmp -s "$T/got" "$T/folder/$path"; then
      got=$((got+1))
    else
      echo "# get $path failed:"
      # a sanitizer's report whole, with its stack; otherwise the message without backtraces
      if grep -q 'Sanitizer' "$T/get-err"; then sed 's/^/#   /' "$T/get-err"
      else grep -v '^ *#[0-9]' "$T/get-err" | head -20 | sed 's/^/#   /'; fi
    fi
    case $path in *.txt|*/README.txt|*DICOMDIR*) continue;; esac
    if "$CLI" convert "$base/$path" "$T/conv.png" 2>>"$T/err"; then conv=$((conv+1));
    else echo "# convert $path: $(tail -1 "$T/err")"; fi
    [ $conv = 1 ] && values "$T/folder/$path" "$T/conv.png" || true
  done < "$T/ls"
  echo "# $files files listed, $got fetched byte for byte, $conv converted"
  check "every file ls -R prints works with get" [ $files -gt 30 -a $got = $files ]
  check "every DICOM instance ls -R prints works with convert" [ $conv -ge 36 ]
  # the paths print decoded; get takes them as they are (space, '#', non-ASCII)
  mkdir -p "$T/folder/With Space"; cp "$D/MR_small.dcm" "$T/folder/With Space/mr #1 ü.dcm"
  "$CLI" ls -R "$base/With%20Space/" > "$T/ls2" 2>>"$T/err"
  check "a level printed with its '/' lists again" quiet "$CLI" ls "$base/With%20Space/$(grep -m1 'series=' "$T/ls2")"
  file=$(grep -v '/$' "$T/ls2" | head -1 | cut -f1)
  "$CLI" get "$base/With Space/$file" "$T/sp.dcm" 2>>"$T/err"
  check "get takes a printed name with a space, '#' and ü" cmp -s "$T/sp.dcm" "$T/folder/With Space/mr #1 ü.dcm"

  # multi-frame: every frame by number and all of them, against pydicom's frame (0-based)
  mkdir -p "$T/mf"
  if "$PY" "$HERE/make-variants.py" "$D" "$T/mf" > /dev/null 2>&1; then
    for f in mf-ct enhanced-ct; do
      frames=$([ $f = mf-ct ] && echo 5 || echo 3)
      for k in $(seq 1 $frames); do
        "$CLI" convert --frame $k "$T/mf/$f.dcm" "$T/$f-$k.png" 2>"$T/err"
        check "convert --frame $k $f.dcm: pydicom's frame $((k-1))" \
          values "$T/mf/$f.dcm" "$T/$f-$k.png" $((k-1))
      done
      "$CLI" convert --frame all "$T/mf/$f.dcm" "$T/all-$f.png" 2>"$T/err"
      check "convert --frame all $f.dcm writes $frames numbered PNGs" \
        [ "$(ls "$T" | grep -c "^all-$f-[0-9]\{4\}\.png$")" = $frames ]
      for k in $(seq 1 $frames); do
        check "frame $k of --frame all $f.dcm: pydicom's frame $((k-1))" \
          values "$T/mf/$f.dcm" "$(printf '%s/all-%s-%04d.png' "$T" $f $k)" $((k-1))
      done
    done
    LIGHTBOX_PLUGIN_PATH=${LIGHTBOX_PLUGIN_PATH:-} "$CLI" filter --frame 3 "$T/mf/enhanced-ct.dcm" \
      "$T/mf-filter3.png" median:radius=0 2>"$T/err"
    check "filter --frame 3 of the Enhanced CT: pydicom's frame 2, its own rescale" \
      values "$T/mf/enhanced-ct.dcm" "$T/mf-filter3.png" 2
    LIGHTBOX_PLUGIN_PATH=${LIGHTBOX_PLUGIN_PATH:-} "$CLI" filter --frame all "$T/mf/mf-ct.dcm" \
      "$T/mf-filter.png" median:radius=0 2>"$T/err"
    check "filter --frame all: frame 4 is pydicom's frame 3" \
      values "$T/mf/mf-ct.dcm" "$T/mf-filter-0004.png" 3
    "$CLI" get --frame 2 "file://$T/mf/mf-ct.dcm" "$T/get2.png" 2>"$T/err"
    check "get --frame 2 of a file:// URL: pydicom's frame 1" \
      values "$T/mf/mf-ct.dcm" "$T/get2.png" 1
    "$CLI" get --frame 4 "$T/mf/mf-ct.dcm" "$T/get4.png" 2>"$T/err"
    check "get --frame 4 of a local file: pydicom's frame 3" \
      values "$T/mf/mf-ct.dcm" "$T/get4.png" 3
    "$CLI" convert --frame 6 "$T/mf/mf-ct.dcm" "$T/f6.png" 2>"$T/err"; rc=$?
    check "--frame 6 of 5 fails" [ $rc = 1 ]
    check "the error names frame 6 and the 5 frames" grep -q "no frame 6: it has 5 frames" "$T/err"
    check "and writes nothing" [ ! -e "$T/f6.png" ]
    "$CLI" convert --frame 0 "$T/mf/mf-ct.dcm" "$T/f0.png" 2>"$T/err"
    check "--frame 0 is refused: frames count from 1" grep -q "frame number from 1" "$T/err"
    "$CLI" convert --frame 2 "$D/MR_small.dcm" "$T/f2.png" 2>"$T/err"
    check "--frame 2 of a single-frame file names its 1 frame" grep -q "no frame 2: it has 1 frame" "$T/err"
    "$CLI" convert --frame 2 "$T/mf/enhanced-ct-missing-group.dcm" "$T/fm.png" 2>"$T/err"
    check "a functional group missing for frame 2 is named" \
      grep -q "frame 2 has no PixelValueTransformationSequence" "$T/err"
  else
    echo "# make-variants.py failed (no pydicom?): multi-frame checks skipped"
  fi
  # real multi-frame files: their frame counts, every frame of GDCM's 4-frame XA (JPEG
  # lossless), and frame 2 of a 2-frame RLE colour image, as pydicom decodes them
  "$CLI" convert --frame 16 "$D/rtdose.dcm" "$T/rt.png" 2>"$T/err"
  check "RT Dose (pydicom): --frame 16 names its 15 frames" grep -q "no frame 16: it has 15 frames" "$T/err"
  XA=/usr/share/doc/libgdcm3.0/examples/00191113.dcm
  if [ -e "$XA" ]; then
    "$CLI" convert --frame 5 "$XA" "$T/xa.png" 2>"$T/err"
    check "GDCM's XA: --frame 5 names its 4 frames" grep -q "no frame 5: it has 4 frames" "$T/err"
    "$CLI" convert --frame all "$XA" "$T/xa.png" 2>"$T/err"
    for k in 1 2 3 4; do
      check "GDCM's XA (JPEG lossless) --frame all, frame $k: pydicom's frame $((k-1))" \
        values "$XA" "$(printf '%s/xa-%04d.png' "$T" $k)" $((k-1))
    done
  fi
  "$CLI" convert --frame 2 "$D/SC_rgb_rle_2frame.dcm" "$T/rle2.png" 2>"$T/err"
  check "SC_rgb_rle_2frame.dcm --frame 2: pydicom's frame 1" values "$D/SC_rgb_rle_2frame.dcm" "$T/rle2.png" 1
else
  # DICOMweb (Orthanc): every instance ls -R prints works with get and convert
  base="dicomweb+${LB_DICOMWEB_URL}"
  "$CLI" ls -R "$base" > "$T/ls" 2>"$T/err"
  check "ls -R the DICOMweb server" [ -s "$T/ls" ]
  check "patients print as patients/ID/" grep -q '^patients/1CT1/$' "$T/ls"
  check "instances print as studies/…/series/…/instances/…" \
    grep -qE '^studies/[0-9.]+/series/[0-9.]+/instances/[0-9.]+	' "$T/ls"
  # every instance path names its instance: get and convert succeed, or fail for what the
  # instance is (a transfer syntax or bit depth nothing here decodes), never for the path
  total=0; got=0; named=0
  while IFS=$'\t' read -r path size; do
    case $path in */) continue;; esac
    total=$((total+1))
    for cmd in get convert; do
      rc=0
      "$CLI" $cmd "$base/$path" "$T/out.png" 2>"$T/err" || rc=$?
      if [ $rc = 0 ]; then
        [ $cmd = get ] && got=$((got+1))
      elif [ $rc -ge 128 ] || grep -q 'Sanitizer' "$T/err"; then
        # killed by a signal or a sanitizer: the whole report, not its first line
        echo "# $cmd $path: exit $rc:"; sed 's/^/#   /' "$T/err"
      elif grep -qiE 'not found|no such|not a DICOMweb|404|not inside' "$T/err"; then
        echo "# $cmd $path: $(cat "$T/err")"; continue 2
      else
        echo "# $cmd $path: $(cut -c1-160 "$T/err")"
      fi
    done
    named=$((named+1))
  done < <(sort -u "$T/ls")
  echo "# $total instances, $got fetched as PNG"
  check "every instance path ls -R prints names its instance for get and convert" \
    [ $total -ge 6 -a $named = $total ]
  check "the uncompressed ones are fetched" [ $got -ge 4 ]
  # the uncompressed CT converts to pydicom's values (compressed ones need the server or a codec)
  ct=$(grep -E 'instances/1.3.6.1.4.1.5962.1.1.1.1.1.20040119072730.12322	' "$T/ls" | head -1 | cut -f1)
  "$CLI" convert "$base/$ct" "$T/ct.png" 2>"$T/err"
  check "convert the CT from its DICOMweb URL: pydicom's values" values "$D/CT_small.dcm" "$T/ct.png"

  # multi-frame over WADO-RS frames: a 5-frame CT and an Enhanced CT stored in Orthanc
  mkdir -p "$T/mf"
  if "$PY" "$HERE/make-variants.py" "$D" "$T/mf" > /dev/null 2>&1; then
    for f in mf-ct enhanced-ct; do
      curl -sf --noproxy '*' ${LB_DICOMWEB_AUTH:+-u "$LB_DICOMWEB_AUTH"} -H 'Expect:' \
        --data-binary @"$T/mf/$f.dcm" "${LB_DICOMWEB_URL%/dicom-web}/instances" > /dev/null
      url=$("$PY" -c 'import pydicom, sys; d = pydicom.dcmread(sys.argv[1], stop_before_pixels=True)
print("studies/%s/series/%s/instances/%s" % (d.StudyInstanceUID, d.SeriesInstanceUID, d.SOPInstanceUID))' "$T/mf/$f.dcm")
      "$CLI" convert --frame all "$base/$url" "$T/web-$f.png" 2>"$T/err" || sed 's/^/# /' "$T/err"
      frames=$([ $f = mf-ct ] && echo 5 || echo 3)
      for k in $(seq 1 $frames); do
        check "DICOMweb $f --frame all, frame $k: pydicom's frame $((k-1))" \
          values "$T/mf/$f.dcm" "$(printf '%s/web-%s-%04d.png' "$T" $f $k)" $((k-1))
      done
      "$CLI" get "$base/$url/frames/2" "$T/web-get2.png" 2>"$T/err"
      check "DICOMweb get …/frames/2 of $f: pydicom's frame 1" values "$T/mf/$f.dcm" "$T/web-get2.png" 1
      "$CLI" filter --frame 3 "$base/$url" "$T/web-filter3-$f.png" median:radius=0 2>"$T/err"
      check "DICOMweb filter --frame 3 of $f: pydicom's frame 2" \
        values "$T/mf/$f.dcm" "$T/web-filter3-$f.png" 2
    done
    "$CLI" convert --frame 9 "$base/$url" "$T/web9.png" 2>"$T/err"
    check "DICOMweb --frame 9 of 3 names the frame and the count" \
      grep -q "no frame 9: it has 3 frames" "$T/err"
  else
    echo "# make-variants.py failed (no pydicom?): multi-frame checks skipped"
  fi
fi
tap_end
