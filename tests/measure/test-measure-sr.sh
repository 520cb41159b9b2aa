#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test-measure-sr.sh LIGHTBOX_CLI — run by orthanc-run.sh: measurements saved as a DICOM SR
# (TID 1500) on a real Orthanc and read back. For each phantom of measure-reference.py (0.7 mm
# pixels, and rows 0.9 mm / columns 0.7 mm), uploaded to Orthanc:
#   - `measure --save-sr` in one process; the SR Orthanc stored passes dciodvfy (no error;
#     warnings listed), dcmdump parses it, and pydicom (sr-check.py) finds the SCOORDs equal
#     to the points given and the values equal to numpy's and to what measure printed;
#   - `measurements` in a fresh process gives the same tools, points and values;
#   - a second save makes a second SR series; the first SR's bytes are untouched.
# Then a TID 1500 report written with pydicom as other tools write them is read back.
# TAP output.
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
REST=${LB_DICOMWEB_URL%/dicom-web}
PY=/usr/bin/python3
CHECK=("$PY" "$HERE/sr-check.py")
CURL=(curl -sf --noproxy '*' ${LB_DICOMWEB_AUTH:+-u "$LB_DICOMWEB_AUTH"})
W=$LB_DICOMWEB_RUNDIR/sr
mkdir -p "$W"
n=0; failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
# sr-check.py's PASS/FAIL lines as TAP
tap() {
  local out rc=0
  out=$("${CHECK[@]}" "$@") || rc=$?
  [ $rc -eq 77 ] && { echo "1..0 # SKIP pydicom/numpy missing"; exit 0; }
  while IFS= read -r line; do
    case "$line" in
      "PASS "*) ok "${line#PASS }" ;;
      "FAIL "*) not_ok "${line#FAIL }" ;;
      *) echo "# $line" ;;
    esac
  done <<<"$out"
  [ $rc -eq 0 ] || [ -n "$out" ] || not_ok "sr-check.py $1 failed (status $rc)"
}
# the Orthanc IDs of the SR instances of a study, oldest series first
sr_ids() {
  "${CURL[@]}" -X POST -d "{\"Level\":\"Instance\",\"Expand\":true,\"Query\":{\"StudyInstanceUID\":\"$1\",\"Modality\":\"SR\"}}" \
    "$REST/tools/find" |
    "$PY" -c 'import json,sys; print("\n".join(i["ID"] for i in sorted(json.load(sys.stdin), key=lambda i: int(i["MainDicomTags"].get("InstanceCreationTime","0").split(".")[0] or 0))))'
}

"$PY" "$HERE/measure-reference.py" "$W" >"$W/ref.json" ||
  { echo "1..0 # SKIP the phantoms need pydicom and numpy"; exit 0; }

for case in 0 1; do
  name=$([ $case = 0 ] && echo iso || echo aniso)
  img=$W/$name.dcm
  "${CURL[@]}" -H 'Expect:' --data-binary @"$img" "$REST/instances" >/dev/null
  read -r st se sop < <("${CHECK[@]}" uids "$img")
  url="dicomweb+$LB_DICOMWEB_URL/studies/$st/series/$se/instances/$sop"
  mapfile -t args < <("${CHECK[@]}" args "$W/ref.json" $case)

  # one process measures and saves …
  if "$CLI" measure --json --save-sr "${args[@]}" "$url" >"$W/$name-1.json" 2>"$W/$name-1.err"; then
    ok "$name: measure --save-sr ($(tr -d '\n' <"$W/$name-1.err"))"
  else not_ok "$name: measure --save-sr: $(cat "$W/$name-1.err")"; continue; fi
  mapfile -t ids < <(sr_ids "$st")
  [ ${#ids[@]} = 1 ] && ok "$name: one SR in the study" || not_ok "$name: ${#ids[@]} SRs in the study"
  "${CURL[@]}" "$REST/instances/${ids[0]}/file" -o "$W/$name-sr1.dcm"

  # … the SR is valid DICOM …
  if command -v dciodvfy >/dev/null; then
    dciodvfy "$W/$name-sr1.dcm" >"$W/$name-dciodvfy.txt" 2>&1 || true
    grep -E '^(Warning|Error)' "$W/$name-dciodvfy.txt" | sed 's/^/# dciodvfy: /' || true
    if grep -q '^Error' "$W/$name-dciodvfy.txt"; then not_ok "$name: dciodvfy reports errors"
    else ok "$name: dciodvfy: $(tail -1 "$W/$name-dciodvfy.txt"), no error"; fi
  else echo "# dciodvfy not installed"; fi
  if command -v dcmdump >/dev/null; then
    dcmdump -q "$W/$name-sr1.dcm" >/dev/null 2>"$W/$name-dcmdump.err" && [ ! -s "$W/$name-dcmdump.err" ] \
      && ok "$name: dcmdump parses the SR" || not_ok "$name: dcmdump: $(cat "$W/$name-dcmdump.err")"
  fi
  # … pydicom reads the points and numpy's values back from it …
  tap check-sr "$W/$name-sr1.dcm" "$img" "$W/ref.json" $case "$W/$name-1.json"

  # … and a fresh process finds the same measurements
  if "$CLI" measurements --json "$url" >"$W/$name-2.json" 2>"$W/$name-2.err"; then
    ok "$name: measurements reads the SR back"
    tap compare "$W/$name-1.json" "$W/$name-2.json"
  else not_ok "$name: measurements: $(cat "$W/$name-2.err")"; fi

  # a second save: a second series, the first report untouched
  sum1=$(md5sum <"$W/$name-sr1.dcm")
  if "$CLI" measure --save-sr "${args[0]}" "$url" >/dev/null 2>"$W/$name-3.err"; then
    mapfile -t ids2 < <(sr_ids "$st")
    series=$(for id in "${ids2[@]}"; do "${CURL[@]}" "$REST/instances/$id/series" |
      "$PY" -c 'import json,sys; s=json.load(sys.stdin); print(s["MainDicomTags"]["SeriesInstanceUID"], s["MainDicomTags"].get("SeriesNumber"))'; done)
    [ ${#ids2[@]} = 2 ] && [ "$(echo "$series" | cut -d' ' -f1 | sort -u | wc -l)" = 2 ] \
      && [ "$(echo "$series" | cut -d' ' -f2 | sort -u | wc -l)" = 2 ] \
      && ok "$name: a second save is a second SR series ($(echo $series))" \
      || not_ok "$name: after a second save: ${#ids2[@]} SRs, series $(echo $series)"
    [ "$("${CURL[@]}" "$REST/instances/${ids[0]}/file" | md5sum)" = "$sum1" ] \
      && ok "$name: the first report is untouched" || not_ok "$name: the first report changed"
    "$CLI" measurements --json "$url" >"$W/$name-4.json"
    nrep=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["reports"]))' "$W/$name-4.json")
    [ "$nrep" = 2 ] && ok "$name: measurements lists both reports" || not_ok "$name: $nrep reports listed"
  else not_ok "$name: second save: $(cat "$W/$name-3.err")"; fi
done

# a report as other tools write it
img=$W/iso.dcm
read -r st se sop < <("${CHECK[@]}" uids "$img")
url="dicomweb+$LB_DICOMWEB_URL/studies/$st/series/$se/instances/$sop"
"${CHECK[@]}" foreign "$W/foreign.dcm" "$img"
"${CURL[@]}" -H 'Expect:' --data-binary @"$W/foreign.dcm" "$REST/instances" >/dev/null
if "$CLI" measurements --json "$url" >"$W/foreign.json" 2>"$W/foreign.err"; then
  tap check-foreign "$W/foreign.json"
else not_ok "measurements with another tool's report: $(cat "$W/foreign.err")"; fi
# and the CSV listing shows it too, next to Lightbox's reports
"$CLI" measurements "$url" >"$W/list.csv"
grep -q '^image,slice,tool' "$W/list.csv" && [ "$(grep -c 'report, series 99' "$W/list.csv")" = 4 ] \
  && ok "CSV listing: header and the 4 measurements of the other report" \
  || not_ok "CSV listing: $(head -3 "$W/list.csv")"

# a frame of a multi-frame object: ReferencedFrameNumber, and only that frame lists it
mf=$W/multiframe.dcm
"${CHECK[@]}" multiframe "$mf"
"${CURL[@]}" -H 'Expect:' --data-binary @"$mf" "$REST/instances" >/dev/null
read -r mst mse msop < <("${CHECK[@]}" uids "$mf")
murl="dicomweb+$LB_DICOMWEB_URL/studies/$mst/series/$mse/instances/$msop"
if "$CLI" measure --frame 2 --rectangle 5.5,4.25,30.75,20.5 --save-sr "$murl" >/dev/null 2>"$W/mf.err"; then
  ok "multi-frame: measure --frame 2 --save-sr"
  mapfile -t mids < <(sr_ids "$mst")
  "${CURL[@]}" "$REST/instances/${mids[0]}/file" -o "$W/mf-sr.dcm"
  tap check-frame "$W/mf-sr.dcm" "$mf" 2 5.5 4.25 30.75 20.5
  n2=$("$CLI" measurements --frame 2 "$murl" | tail -n +2 | wc -l)
  n1=$("$CLI" measurements --frame 1 "$murl" | tail -n +2 | wc -l)
  [ "$n2" = 1 ] && [ "$n1" = 0 ] && ok "multi-frame: frame 2 lists the rectangle, frame 1 nothing" \
    || not_ok "multi-frame: frame 2 lists $n2, frame 1 lists $n1"
else not_ok "multi-frame: measure --frame 2: $(cat "$W/mf.err")"; fi

# bad input: a clear error and no report
if out=$("$CLI" measure --save-sr --length 1,2,3 "$url" 2>&1); then not_ok "odd coordinates accepted"
else echo "$out" | grep -q 'pairs' && ok "odd coordinates are refused" || not_ok "odd coordinates: $out"; fi
if out=$("$CLI" measure --save-sr --length 1,2,3,4 "$img" 2>&1); then not_ok "--save-sr on a file accepted"
else echo "$out" | grep -q 'DICOMweb' && ok "--save-sr on a local file says it needs DICOMweb" \
  || not_ok "--save-sr on a file: $out"; fi
[ "$(sr_ids "$st" | wc -l)" = 3 ] && ok "no report was added by refused commands" \
  || not_ok "$(sr_ids "$st" | wc -l) SRs after refused commands"
echo "1..$n"
exit $failed
