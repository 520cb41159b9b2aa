#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""filters-reference.py DIR — the inputs and the independent references of test-filters.c.

Without DIR/results: writes the inputs (exit 77 without pydicom, numpy or PIL):
  DIR/series/     ten 48×40 16-bit MONOCHROME2 slices of one series, by pydicom
  DIR/store/      smooth.png (8-bit gradient and waves), post.png, pre.png (8-bit noise),
                  small.png (7×5: the wrong size for a mask)
With DIR/results (what the workstation made, and DIR/results/cases.txt saying from what):
  checks each result against numpy (subtraction), ImageMagick's -resize (resampling), and
  lightbox-cli filter run on each slice file (the whole-series filter), and the series the
  workstation wrote back by reading it with pydicom. Prints one "ok: …" or "not ok: …" line
  per check (the caller fails on any "not ok")."""

import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import pydicom
    from PIL import Image
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print("filters-reference.py: %s" % e, file=sys.stderr)
    sys.exit(77)

root = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "not ok: ") + what)
    if not ok:
        failures += 1


def load_png(path):
    return np.array(Image.open(path)).astype(np.int64)


def make_inputs():
    series, store = os.path.join(root, "series"), os.path.join(root, "store")
    os.makedirs(series)
    os.makedirs(store)
    rng = np.random.default_rng(26)
    study, uid = generate_uid(), generate_uid()
    yy, xx = np.mgrid[0:40, 0:48]
    for k in range(10):
        sop = generate_uid()
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.2"
        meta.MediaStorageSOPInstanceUID = sop
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds = FileDataset(None, {}, file_meta=meta, preamble=b"\0" * 128)
        ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, sop
        ds.StudyDate, ds.Modality = "20260101", "CT"
        ds.PatientName, ds.PatientID = "Filter^Test", "F-26"
        ds.StudyInstanceUID, ds.SeriesInstanceUID = study, uid
        ds.SeriesNumber, ds.InstanceNumber = 4, k + 1
        ds.SeriesDescription = "Phantom"
        ds.ImagePositionPatient = [0.0, 0.0, 2.5 * k]
        ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
        ds.PixelSpacing = [0.8, 0.8]
        ds.SliceThickness = 2.5
        ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, "MONOCHROME2"
        ds.Rows, ds.Columns = 40, 48
        ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 0
        ds.RescaleIntercept, ds.RescaleSlope = 0, 1
        ds.WindowCenter, ds.WindowWidth = 2000, 4000
        # a sphere-ish blob growing with k over noise: every slice differs
        blob = 3000.0 * np.exp(-((xx - 24) ** 2 + (yy - 20) ** 2) / (30.0 + 20 * k))
        px = np.clip(blob + rng.integers(0, 600, size=(40, 48)) + 40 * k, 0, 65535)
        ds.PixelData = px.astype("<u2").tobytes()
        ds.save_as(os.path.join(series, "slice-%02d.dcm" % k), write_like_original=False)
    with open(os.path.join(root, "series-uid.txt"), "w") as f:
        f.write(uid + "\n")
    h, w = 41, 57
    yy, xx = np.mgrid[0:h, 0:w]
    smooth = 20 + 215 * (0.5 + 0.25 * np.sin(xx / 4.0) + 0.25 * np.cos(yy / 5.0 + xx / 9.0))
    Image.fromarray(np.clip(np.round(smooth), 0, 255).astype(np.uint8)).save(
        os.path.join(store, "smooth.png"))
    for name in ("post", "pre"):
        Image.fromarray(rng.integers(0, 256, size=(37, 53)).astype(np.uint8)).save(
            os.path.join(store, name + ".png"))
    Image.fromarray(np.zeros((5, 7), np.uint8)).save(os.path.join(store, "small.png"))


def dicom_values(path):
    return pydicom.dcmread(path).pixel_array.astype(np.int64)


def subtract(a, b, offset, maxv):
    # plugins/medical/lb-subtract.c's definition, written again from its documentation:
    # clip(a − b + round(offset/100 × max)), halves away from zero
    shift = offset / 100.0 * maxv
    shift = np.sign(shift) * np.floor(abs(shift) + 0.5)
    return np.clip(a - b + int(shift), 0, maxv)


def magick():
    for name in ("magick", "convert-im6.q16", "convert"):
        if shutil.which(name):
            return name
    return None


def orthanc_get(path):
    import json
    import urllib.request
    base = os.environ["LB_DICOMWEB_URL"].rsplit("/dicom-web", 1)[0]
    with urllib.request.urlopen(base + path) as r:
        data = r.read()
    return json.loads(data) if path.split("?")[0].rsplit("/", 1)[-1] != "file" else data


def check_orthanc(res, cli, description, source, step):
    """The series Lightbox stored: found by its description in Orthanc's own REST API, each
    instance read with pydicom and compared with lightbox-cli filter on the source file of
    the same position; the source series still has its ten instances, unchanged."""
    import io
    by_z = {}
    for f in sorted(os.listdir(source)):
        if f.endswith(".dcm"):
            ds = pydicom.dcmread(os.path.join(source, f))
            by_z[round(float(ds.ImagePositionPatient[2]), 3)] = (os.path.join(source, f), ds)
    found = [s for s in orthanc_get("/series?expand")
             if s["MainDicomTags"].get("SeriesDescription") == description]
    check(len(found) == 1, "Orthanc has one series “%s”" % description)
    if len(found) != 1:
        return
    instances = found[0]["Instances"]
    check(len(instances) == len(by_z), "it has %d instances (%d expected)"
          % (len(instances), len(by_z)))
    src_uid = str(next(iter(by_z.values()))[1].SeriesInstanceUID)
    sops = set()
    for i, iid in enumerate(instances):
        ds = pydicom.dcmread(io.BytesIO(orthanc_get("/instances/%s/file" % iid)))
        sops.add(str(ds.SOPInstanceUID))
        path, src = by_z[round(float(ds.ImagePositionPatient[2]), 3)]
        ref_path = os.path.join(res, "orthanc-ref-%d.png" % i)
        r = subprocess.run([cli, "filter", "--force", path, ref_path, step],
                           capture_output=True, text=True)
        check(r.returncode == 0 and np.array_equal(ds.pixel_array.astype(np.int64),
                                                   load_png(ref_path)),
              "stored instance at z=%s equals lightbox-cli filter %s on %s (pydicom)"
              % (ds.ImagePositionPatient[2], step, os.path.basename(path)))
        check(str(ds.SeriesInstanceUID) != src_uid and "DerivationDescription" in ds,
              "instance %d: a new series, with a DerivationDescription" % (i + 1))
    check(len(sops) == len(instances) and not sops & {str(v[1].SOPInstanceUID)
                                                      for v in by_z.values()},
          "new SOP Instance UIDs")
    src = [s for s in orthanc_get("/series?expand")
           if s["MainDicomTags"].get("SeriesInstanceUID") == src_uid]
    same = len(src) == 1 and len(src[0]["Instances"]) == len(by_z)
    for iid in (src[0]["Instances"] if same else []):
        ds = pydicom.dcmread(io.BytesIO(orthanc_get("/instances/%s/file" % iid)))
        orig = by_z[round(float(ds.ImagePositionPatient[2]), 3)][1]
        same = same and np.array_equal(ds.pixel_array, orig.pixel_array)
    check(same, "the source series in Orthanc is untouched: %d instances, the same pixels"
          % len(by_z))


def check_results():
    res = os.path.join(root, "results")
    cli = os.path.join(os.environ["LB_BUILD_ROOT"], "src", "cli", "lightbox-cli")
    with open(os.path.join(res, "cases.txt")) as f:
        cases = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for case in cases:
        kind, out = case[0], os.path.join(res, case[1])
        got = load_png(out) if out.endswith(".png") else None
        if kind == "orthanc-series":
            check_orthanc(res, cli, case[2], case[3], case[4])
            continue
        if kind == "subtract-dicom":       # out, slice a, slice b (paths), offset
            ref = subtract(dicom_values(case[2]), dicom_values(case[3]), float(case[4]), 65535)
            check(np.array_equal(got, ref), "subtract, second image a slice: equals numpy")
        elif kind == "subtract-png":       # out, a, b (paths or result files), offset
            a = load_png(case[2] if os.path.isabs(case[2]) else os.path.join(res, case[2]))
            b = load_png(case[3] if os.path.isabs(case[3]) else os.path.join(res, case[3]))
            ref = subtract(a, b, float(case[4]), 255)
            check(np.array_equal(got, ref), "subtract %s − %s: equals numpy"
                  % (os.path.basename(case[2]), os.path.basename(case[3])))
        elif kind == "resample":           # out, source, factor, uploaded file
            src, factor = case[2], float(case[3])
            img = Image.open(src)
            ow = int(np.floor(img.width * factor + 0.5))
            oh = int(np.floor(img.height * factor + 0.5))
            tool = magick()
            ref_path = os.path.join(res, "resample-magick.png")
            subprocess.run([tool, src, "-filter", "Triangle", "-resize", "%dx%d!" % (ow, oh),
                            "-depth", "8", ref_path], check=True)
            ref = load_png(ref_path)
            check(got.shape == ref.shape and int(np.abs(got - ref).max()) <= 1,
                  "resample ×%g: %s, ImageMagick %s, at most one step apart"
                  % (factor, got.shape, ref.shape))
            up = load_png(case[4])
            check(np.array_equal(up, got), "the uploaded file holds the resampled %d×%d image"
                  % (up.shape[1], up.shape[0]))
        elif kind == "series":             # out (slice result), source file, step, derived file
            ref_path = out + ".cli.png"
            r = subprocess.run([cli, "filter", "--force", case[2], ref_path, case[3]],
                               capture_output=True, text=True)
            check(r.returncode == 0, "lightbox-cli filter %s %s" % (os.path.basename(case[2]),
                                                                    r.stderr.strip()))
            if r.returncode == 0:
                check(np.array_equal(got, load_png(ref_path)),
                      "series slice %s: the whole-series result equals lightbox-cli's"
                      % os.path.basename(case[2]))
            if len(case) > 4:
                ds = pydicom.dcmread(case[4])
                check(np.array_equal(ds.pixel_array.astype(np.int64), got),
                      "the written-back %s holds the filtered values (pydicom)"
                      % os.path.basename(case[4]))
        elif kind == "derived-slice":      # out (slice result), derived file
            ds = pydicom.dcmread(case[2])
            check(np.array_equal(ds.pixel_array.astype(np.int64), got),
                  "the written-back %s holds the filtered values (pydicom)"
                  % os.path.basename(case[2]))
        elif kind == "derived-series":     # folder, source folder, expected count
            folder, source, n = case[1], case[2], int(case[3])
            files = sorted(os.listdir(folder))
            dss = [pydicom.dcmread(os.path.join(folder, f)) for f in files]
            src = [pydicom.dcmread(os.path.join(source, f)) for f in sorted(os.listdir(source))
                   if f.endswith(".dcm")]
            check(len(dss) == n, "the derived series has %d instances (%d expected)"
                  % (len(dss), n))
            series_uids = {str(d.SeriesInstanceUID) for d in dss}
            sops = {str(d.SOPInstanceUID) for d in dss}
            check(len(series_uids) == 1 and series_uids.isdisjoint(
                  {str(s.SeriesInstanceUID) for s in src}), "one new SeriesInstanceUID")
            check(len(sops) == n and sops.isdisjoint({str(s.SOPInstanceUID) for s in src}),
                  "new SOPInstanceUIDs")
            check(all("DerivationDescription" in d for d in dss), "DerivationDescription set")
            check(all(str(d.StudyInstanceUID) == str(src[0].StudyInstanceUID) for d in dss),
                  "in the source's study")
        elif kind == "untouched":          # folder, sha256 list file
            out = case[1]
            import hashlib
            with open(os.path.join(res, case[2])) as f:
                before = f.read()
            now = "".join("%s %s\n" % (n, hashlib.sha256(open(os.path.join(out, n), "rb")
                                                         .read()).hexdigest())
                          for n in sorted(os.listdir(out))
                          if os.path.isfile(os.path.join(out, n)))
            check(now == before, "the source series is untouched")
        else:
            check(False, "unknown case " + kind)


if os.path.isdir(os.path.join(root, "results")):
    check_results()
    sys.exit(0)
make_inputs()
