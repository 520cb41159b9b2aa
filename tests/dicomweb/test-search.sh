#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test-search.sh LIGHTBOX_CLI — run by orthanc-run.sh: `lightbox-cli search` (QIDO-RS /studies)
# against Orthanc's own REST answer (/tools/find at study level) for the same criteria, on the
# seeded pydicom files plus a phantom study (make-phantom.py); paging must give disjoint pages
# whose union is the whole answer. TAP output.
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
REST=${LB_DICOMWEB_URL%/dicom-web}
PY=/usr/bin/python3
CURL=(curl -sf --noproxy '*' ${LB_DICOMWEB_AUTH:+-u "$LB_DICOMWEB_AUTH"})
n=0; failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }

"$PY" "$HERE/../dicom/make-phantom.py" "$LB_DICOMWEB_RUNDIR/phantom" --slices 3 --size 16 \
  >/dev/null || { echo "1..0 # SKIP phantom needs pydicom"; exit 0; }
for f in "$LB_DICOMWEB_RUNDIR"/phantom/*/*.dcm; do
  "${CURL[@]}" -H 'Expect:' --data-binary @"$f" "$REST/instances" >/dev/null
done

# StudyInstanceUIDs Orthanc's REST finds for a /tools/find query (JSON object), sorted
rest_find() {
  "${CURL[@]}" -X POST -d "{\"Level\":\"Study\",\"Expand\":true,\"Query\":$1}" "$REST/tools/find" |
    "$PY" -c 'import json,sys; print("\n".join(sorted(s["MainDicomTags"]["StudyInstanceUID"] for s in json.load(sys.stdin))))'
}
cli_find() { "$CLI" search "$@" "$LB_DICOMWEB_URL" | cut -f1 | sort; }

check() {  # NAME REST_QUERY CLI_ARGS…
  local name=$1 query=$2; shift 2
  local want got
  want=$(rest_find "$query"); got=$(cli_find "$@")
  if [ -n "$want" ] && [ "$want" = "$got" ]; then ok "$name ($(echo "$want" | wc -l) studies)"
  else not_ok "$name"; echo "# want: $want"; echo "# got:  $got"; fi
}

check "everything" '{}' --limit 1000
check "patient name wildcard" '{"PatientName":"Phantom*"}' --patient 'Phantom*'
check "patient ID" '{"PatientID":"PH-26"}' --patient-id PH-26
check "date range" '{"StudyDate":"20240101-20241231"}' --from 20240101 --to 20241231
check "open date range" '{"StudyDate":"-20000101"}' --to 20000101
check "modality" '{"ModalitiesInStudy":"MR"}' --modality MR
check "accession" '{"AccessionNumber":"ACC-2601"}' --accession ACC-2601
check "criteria together" '{"PatientID":"PH-26","ModalitiesInStudy":"CT","StudyDate":"20240229-"}' \
  --patient-id PH-26 --modality CT --from 20240229

# paging: pages of 2 are disjoint and together the whole answer
all=$(cli_find --limit 1000); total=$(echo "$all" | wc -l)
pages=""; offset=0
while [ "$offset" -lt $((total + 2)) ]; do
  page=$(cli_find --limit 2 --offset "$offset")
  [ -z "$page" ] || pages+="$page"$'\n'
  offset=$((offset + 2))
done
if [ "$(echo -n "$pages" | sort)" = "$all" ] && [ "$(echo -n "$pages" | sort -u | wc -l)" = "$total" ]; then
  ok "pages of 2 cover the $total studies once"
else not_ok "paging"; fi
first=$("$CLI" search --limit 2 "$LB_DICOMWEB_URL" | wc -l)
[ "$first" = 2 ] && ok "--limit 2 returns 2 of $total" || not_ok "--limit 2 returned $first"

# bad input: a clear error, no request
if out=$("$CLI" search --from 2024-01-01 "$LB_DICOMWEB_URL" 2>&1); then not_ok "bad date accepted"
else echo "$out" | grep -q YYYYMMDD && ok "a bad date is refused" || not_ok "bad date message: $out"; fi
if out=$("$CLI" search --from 20240301 --to 20240101 "$LB_DICOMWEB_URL" 2>&1); then not_ok "reversed range"
else ok "a reversed range is refused"; fi
if out=$("$CLI" search --limit 5000 "$LB_DICOMWEB_URL" 2>&1); then not_ok "huge page accepted"
else ok "a page above the maximum is refused"; fi
echo "1..$n"
exit $failed
