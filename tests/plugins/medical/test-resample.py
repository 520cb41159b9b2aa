#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The resample filter (plugins/medical, ABI 1.3's output geometry) run by lightbox-cli,
against ImageMagick's -resize with the same kernels (Point, Triangle, Lanczos), which
resample.c's weights follow: nearest neighbour equal to the byte, linear and Lanczos within
one step of 8 bits (two of 16: ImageMagick Q16 rounds between its two passes), in process and
in lightbox-filter-host alike; the output's size is the scaled size, its depth the one asked
for. Skips (77) without ImageMagick's convert."""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pngcheck import Verdicts, load, save  # noqa: E402

cli = sys.argv[1]
convert = shutil.which("convert")
if convert is None:
    print("SKIP: no ImageMagick convert")
    sys.exit(77)
verdicts = Verdicts()
check = verdicts.check


def lightbox(src, dst, step, isolation):
    env = dict(os.environ, LIGHTBOX_PLUGIN_ISOLATION=isolation)
    r = subprocess.run([cli, "filter", "--force", src, dst, step], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
    return r.returncode == 0


def magick(src, dst, kernel, width, height, depth):
    subprocess.run([convert, src, "-filter", kernel, "-resize", "%dx%d!" % (width, height),
                    "-depth", str(depth), dst], check=True)


# Smooth content (a gradient and slow waves, 20..235 of 255): Lanczos overshoots nowhere
# near the range's ends, where ImageMagick's non-HDRI build clamps between its passes.
h, w = 41, 57
yy, xx = np.mgrid[0:h, 0:w]
smooth = 20 + 215 * (0.5 + 0.25 * np.sin(xx / 4.0) + 0.25 * np.cos(yy / 5.0 + xx / 9.0))
cases = [
    ("gray8", np.clip(np.round(smooth), 0, 255).astype(np.uint8), 8),
    ("gray16", np.clip(np.round(smooth * 257), 0, 65535).astype(np.uint16), 16),
    ("rgb8", np.stack([np.clip(np.round(smooth), 0, 255),
                       np.clip(np.round(255 - smooth), 0, 255),
                       np.clip(np.round(smooth[:, ::-1]), 0, 255)], axis=2).astype(np.uint8), 8),
]
kernels = [("nearest", "Point", 0), ("linear", "Triangle", 1), ("lanczos", "Lanczos", 1)]

with tempfile.TemporaryDirectory() as tmp:
    for name, arr, depth in cases:
        src = os.path.join(tmp, name + ".png")
        save(arr, src)
        for method, kernel, tol8 in kernels:
            for factor in (0.37, 0.5, 1.7, 3.0):
                # the filter rounds halves away from zero (C round()), Python to even
                ow, oh = int(np.floor(w * factor + 0.5)), int(np.floor(h * factor + 0.5))
                ref_path = os.path.join(tmp, "ref-%s-%s-%g.png" % (name, method, factor))
                magick(src, ref_path, kernel, ow, oh, depth)
                ref = load(ref_path)
                tol = tol8 if depth == 8 else 2 * tol8
                for isolation in ("none", "all"):
                    out_path = os.path.join(tmp, "%s-%s-%g-%s.png" % (name, method, factor,
                                                                       isolation))
                    what = "%s %s ×%g (%s)" % (name, method, factor, isolation)
                    if not lightbox(src, out_path, "resample:factor=%g,method=%s" % (factor, method),
                                    isolation):
                        check(False, what + ": the filter failed")
                        continue
                    out = load(out_path)
                    if out.shape != ref.shape:
                        check(False, "%s: %s, ImageMagick %s" % (what, out.shape, ref.shape))
                        continue
                    diff = int(np.abs(out - ref).max())
                    check(diff <= tol, "%s: %dx%d, at most %d from ImageMagick" % (what, ow, oh, diff))
        # a change of depth: 8 → 16 bits, the range onto the range (gray: PIL reads 16-bit
        # RGB as 8-bit)
        if name == "gray8":
            out_path = os.path.join(tmp, name + "-deep.png")
            ref_path = os.path.join(tmp, name + "-deep-ref.png")
            magick(src, ref_path, "Triangle", int(round(w * 1.7)), int(round(h * 1.7)), 16)
            ok = lightbox(src, out_path, "resample:factor=1.7,method=linear,depth=bits16", "all")
            out = load(out_path) if ok else None
            ref = load(ref_path)
            check(ok and Image.open(out_path).mode in ("I;16", "I", "I;16B")
                  and out.shape == ref.shape and int(np.abs(out - ref).max()) <= 2,
                  "%s linear ×1.7 to 16 bits" % name)

sys.exit(1 if verdicts.failures else 0)
