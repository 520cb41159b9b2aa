#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# orthanc-run.sh [--no-gdcm] [--auth] EXPECTED_PY PROGRAM [ARGS…]
#
# Starts a private Orthanc (DICOMweb + GDCM plugins) on 127.0.0.1 at a free port chosen now, with
# its database in a fresh temporary directory, no DICOM port and no remote access; seeds it with
# real DICOM files from python3-pydicom (and dicom3tools' example when installed); computes the
# expected values with pydicom (EXPECTED_PY writes a GKeyFile); runs PROGRAM with
#   LB_DICOMWEB_URL       http://127.0.0.1:PORT/dicom-web
#   LB_DICOMWEB_EXPECTED  the key file
#   LB_DICOMWEB_RUNDIR    the scratch directory
#   LB_ORTHANC_GDCM       1 when the GDCM plugin (JPEG 2000 etc. transcoding) is loaded, else 0
#   LB_DICOMWEB_AUTH      user:password when --auth turned on HTTP Basic authentication
#   LB_ORTHANC_LOG        Orthanc's log file; with --verbose it has a line per HTTP request
#                         ("(http) GET /dicom-web/…"), which tests count
# --no-gdcm leaves the GDCM plugin out, so compressed instances cannot be transcoded.
# --auth requires HTTP Basic authentication, with a user and password made up now.
# --verbose runs Orthanc with --verbose, so that its log lists every request.
# and stops Orthanc afterwards, whatever happened. Exit status: PROGRAM's; 77 (skip) when
# Orthanc or its DICOMweb plugin is not installed.
set -euo pipefail

GDCM=1
AUTH=
VERBOSE=
while :; do
  case "${1:-}" in
    --no-gdcm) GDCM=0; shift ;;
    --auth) AUTH="lightbox:$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"; shift ;;
    --verbose) VERBOSE=--verbose; shift ;;
    *) break ;;
  esac
done
EXPECTED_PY=$1; shift
ORTHANC=/usr/sbin/Orthanc
PLUGINS=/usr/share/orthanc/plugins
PYD=/usr/lib/python3/dist-packages/pydicom/data/test_files
PY=/usr/bin/python3

for need in "$ORTHANC" "$PLUGINS/libOrthancDicomWeb.so" "$PY" "$PYD/CT_small.dcm"; do
  [ -e "$need" ] || { echo "SKIP: $need not installed"; exit 77; }
done
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }

# Everything stays on loopback: no proxy may see this traffic.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost

RUN=$(mktemp -d "${TMPDIR:-/tmp}/lb-orthanc.XXXXXX")
PID=
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    # Orthanc needs 3.5–4 s to shut down; give it 20 s before forcing.
    for _ in $(seq 1 400); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$PID" 2>/dev/null && kill -KILL "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  [ -n "${LB_KEEP_ORTHANC_DIR:-}" ] && echo "kept $RUN" || rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

AS_USER=()
if [ "$(id -u)" -eq 0 ]; then
  AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

plugins="\"$PLUGINS/libOrthancDicomWeb.so\""
[ -e "$PLUGINS/libOrthancGdcm.so" ] || GDCM=0
[ "$GDCM" = 1 ] && plugins="$plugins, \"$PLUGINS/libOrthancGdcm.so\""

free_port() {
  "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

started=
for attempt in 1 2 3 4 5; do
  PORT=$(free_port)
  mkdir -p "$RUN/db"
  # The GDCM plugin (1.5) decodes only JPEG 2000 here: left to take every transfer syntax, its
  # decoder overflowed the stack of Orthanc's HTTP worker threads (segfault in libgdcmMSFF, seen
  # in the kernel log) on uncompressed and RLE instances, under load. Orthanc's own DCMTK
  # decoders handle those.
  cat > "$RUN/orthanc.json" <<JSON
{ "Name" : "LightboxTestOrthanc",
  "StorageDirectory" : "$RUN/db", "IndexDirectory" : "$RUN/db",
  "HttpPort" : $PORT, "RemoteAccessAllowed" : false,
  "AuthenticationEnabled" : $([ -n "$AUTH" ] && echo true || echo false),
  $([ -n "$AUTH" ] && echo "\"RegisteredUsers\" : { \"${AUTH%%:*}\" : \"${AUTH#*:}\" },")
  "DicomServerEnabled" : false, "WebDavEnabled" : false,
  "DicomWeb" : { "Enable" : true, "Root" : "/dicom-web/" },
  "Gdcm" : { "Throttling" : 1,
             "RestrictTransferSyntaxes" : [ "1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.4.91" ] },
  "Plugins" : [ $plugins ] }
JSON
  [ "$(id -u)" -eq 0 ] && chown -R 65534:65534 "$RUN"
  "${AS_USER[@]}" "$ORTHANC" $VERBOSE --logdir="$RUN" "$RUN/orthanc.json" >"$RUN/stdout" 2>&1 &
  PID=$!
  for _ in $(seq 1 400); do
    kill -0 "$PID" 2>/dev/null || break
    code=$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/system" || true)
    if [ "$code" != 000 ]; then started=1; break; fi
    sleep 0.05
  done
  [ -n "$started" ] && break
  # The port was taken between the probe and the bind (another test), or Orthanc failed: retry.
  echo "Orthanc did not start on port $PORT (attempt $attempt):"; tail -5 "$RUN/stdout" || true
  kill -KILL "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=
  rm -rf "$RUN/db"
done
[ -n "$started" ] || { echo "Orthanc failed to start"; exit 1; }
echo "Orthanc listening on 127.0.0.1:$PORT (pid $PID, dir $RUN)" >&2

# CT (16-bit signed, rescale), MR (16-bit signed, window), RT dose (32-bit: must be refused),
# a JPEG 2000 CT (14-bit signed; decoded by the client). The J2K file stays in the installed
# package (its data set's licence forbids copying it).
# RGB: RLE (decoded by the client), big-endian colour-by-plane; YBR_FULL_422 (converted to RGB
# by the client; Orthanc sends it only as the Pixel Data's bulk data).
SEED=("$PYD/CT_small.dcm" "$PYD/MR_small.dcm" "$PYD/rtdose.dcm" "$PYD/SC_rgb_rle.dcm"
      "$PYD/ExplVR_BigEnd.dcm" "$PYD/SC_ybr_full_422_uncompressed.dcm")
[ -e "$PYD/693_J2KI.dcm" ] && SEED+=("$PYD/693_J2KI.dcm")
# Served as stored and decoded by the client: JPEG extended 12-bit (an image/jpeg part), JPEG
# 2000 YBR_RCT colour (image/jp2), and JPEG-LS (image/jls: the MR made here with new UIDs, as
# pydicom's own JPEG-LS MR shares MR_small's SOP Instance UID).
# The J2K colour file has no patient or modality: it gets them, as the tree test wants one
# patient per ID.
[ -e "$PYD/JPGExtended.dcm" ] && SEED+=("$PYD/JPGExtended.dcm")
if command -v dcmcjpls >/dev/null && command -v dcmodify >/dev/null; then
  dcmcjpls +el "$PYD/MR_small.dcm" "$RUN/MR_small_jpegls.dcm" \
    && dcmodify -q -nb -gst -gse -gin "$RUN/MR_small_jpegls.dcm" && SEED+=("$RUN/MR_small_jpegls.dcm")
  if [ -e "$PYD/GDCMJ2K_TextGBR.dcm" ]; then
    cp "$PYD/GDCMJ2K_TextGBR.dcm" "$RUN/GDCMJ2K_TextGBR.dcm"
    dcmodify -q -nb -i "(0010,0010)=Text^GBR" -i "(0010,0020)=GBR1" -i "(0008,0060)=OT" \
      "$RUN/GDCMJ2K_TextGBR.dcm" \
      && SEED+=("$RUN/GDCMJ2K_TextGBR.dcm")
  fi
fi
[ -e /usr/share/doc/dicom3tools/examples/0051.dcm ] && SEED+=(/usr/share/doc/dicom3tools/examples/0051.dcm)
for f in "${SEED[@]}"; do
  curl -sf --noproxy '*' ${AUTH:+-u "$AUTH"} -H 'Expect:' --data-binary @"$f" \
    "http://127.0.0.1:$PORT/instances" >/dev/null \
    || { echo "seeding $f failed"; exit 1; }
done
printf '%s\n' "${SEED[@]}" > "$RUN/seeded.txt"

"$PY" "$EXPECTED_PY" "$RUN/expected.ini" "${SEED[@]}"

export LB_DICOMWEB_URL="http://127.0.0.1:$PORT/dicom-web"
export LB_DICOMWEB_EXPECTED="$RUN/expected.ini"
export LB_DICOMWEB_RUNDIR="$RUN"
export LB_ORTHANC_GDCM=$GDCM
export LB_DICOMWEB_AUTH="$AUTH"
export LB_ORTHANC_LOG="$RUN/Orthanc.log"
set +e
"$@"
rc=$?
set -e
[ $rc -eq 0 ] || { echo "--- Orthanc log (tail) ---"; tail -20 "$RUN/stdout" "$RUN"/Orthanc.log 2>/dev/null || true; }
exit $rc
