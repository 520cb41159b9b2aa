#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Converts one DICOM image into a Lightbox sample PNG.

dcmtk's dcm2pnm does the pixel conversion. This script then works out, by comparing with
pydicom's pixel_array, exactly how dcm2pnm mapped stored values to PNG samples (signed data are
offset by 32768, 12-bit data are scaled by 16), and records that mapping together with the
DICOM rescale as Lightbox's "lightbox:rescale" text chunk, so that modality values (Hounsfield
units for CT) can be recovered exactly. Window centre/width, pixel spacing (pHYs) and a few
non-identifying attributes are added as well. Patient attributes are never copied.

Usage: dicom-to-sample.py INPUT.dcm OUTPUT.png [--8bit] [--source TEXT] [--license TEXT]
"""
import argparse
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import pydicom


def read_pam(png):
    out = subprocess.run(["pngtopam", png], check=True, capture_output=True).stdout
    if out.startswith(b"P7"):
        end = out.index(b"ENDHDR\n") + 7
        hdr = dict(l.split(b" ", 1) for l in out[:end].split(b"\n")[1:-2])
        w, h, mx, depth = (int(hdr[k]) for k in (b"WIDTH", b"HEIGHT", b"MAXVAL", b"DEPTH"))
        data = out[end:]
    else:  # P5/P6
        magic, dims, maxval, data = out.split(b"\n", 3)
        w, h = map(int, dims.split())
        mx = int(maxval)
        depth = 3 if magic == b"P6" else 1
    arr = np.frombuffer(data, dtype=">u2" if mx > 255 else "u1")
    return arr.reshape(h, w, depth)


def chunk(kind, payload):
    c = kind + payload
    return struct.pack(">I", len(payload)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--8bit", dest="eight", action="store_true")
    ap.add_argument("--source", default="")
    ap.add_argument("--license", default="")
    a = ap.parse_args()

    ds = pydicom.dcmread(a.input)
    with tempfile.NamedTemporaryFile(suffix=".png") as tmp:
        # +on2: 16-bit PNG; +on: 8-bit with a min-max window (+Wm); -il: not interlaced.
        args = ["dcm2pnm", "+on" if a.eight else "+on2", "-il"] + (["+Wm"] if a.eight else [])
        subprocess.run(args + [a.input, tmp.name], check=True)
        png = open(tmp.name, "rb").read()
        pam = read_pam(tmp.name)

    texts = [("Title", ds.get("SeriesDescription", "") or ds.get("StudyDescription", "") or "DICOM sample"),
             ("Modality", str(ds.get("Modality", ""))),
             ("Source", a.source), ("Copyright", a.license),
             ("Software", "dcmtk dcm2pnm, build-aux/dicom-to-sample.py")]
    spp = int(ds.get("SamplesPerPixel", 1))
    if spp == 1 and not a.eight:
        stored = ds.pixel_array.astype(np.int64)
        png_vals = pam[..., 0].astype(np.int64)
        slope = float(ds.get("RescaleSlope", 1.0))
        intercept = float(ds.get("RescaleIntercept", 0.0))
        # Find dcm2pnm's linear map png = stored * k + o, and prove it holds for every pixel.
        lo, hi = np.unravel_index(stored.argmin(), stored.shape), np.unravel_index(stored.argmax(), stored.shape)
        k = (png_vals[hi] - png_vals[lo]) / (stored[hi] - stored[lo])
        o = png_vals[lo] - stored[lo] * k
        if not np.array_equal(stored * k + o, png_vals):
            sys.exit(f"{a.input}: dcm2pnm's mapping is not linear; refusing to guess")
        # modality = stored * slope + intercept = (png - o) / k * slope + intercept
        texts.append(("lightbox:rescale", f"{slope / k!r} {intercept - o * slope / k!r}"))
        if int(ds.get("PixelRepresentation", 0)) == 1:
            texts.append(("Comment", "Signed DICOM samples, offset by 32768 into unsigned PNG samples"))
        wc, ww = ds.get("WindowCenter"), ds.get("WindowWidth")
        if wc is not None and ww is not None:
            first = lambda v: float(v[0] if isinstance(v, pydicom.multival.MultiValue) else v)
            texts.append(("lightbox:window", f"{first(wc)!r} {first(ww)!r}"))

    extra = b""
    sp = ds.get("PixelSpacing")
    if sp is not None:
        # PixelSpacing is row spacing (y), column spacing (x) in mm; pHYs wants pixels per metre.
        extra += chunk(b"pHYs", struct.pack(">IIB", round(1000 / float(sp[1])), round(1000 / float(sp[0])), 1))
    for k, v in texts:
        if v:
            extra += chunk(b"tEXt", k.encode("latin-1") + b"\0" + str(v).encode("latin-1"))
    # Insert after IHDR (8-byte signature + 25-byte IHDR chunk).
    out = png[:33] + extra + png[33:]
    open(a.output, "wb").write(out)


if __name__ == "__main__":
    main()
