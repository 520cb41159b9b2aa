#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent reference for plugins/python/gradient_magnitude.py (test-python-filter.c).

Reads DIR/cases.json and DIR/NAME.in (packed rows), writes DIR/NAME.ref. The formula is the
one the example's docstring states, computed another way: 3×3 correlation windows
(sliding_window_view) with the Sobel or central-difference kernels written out, instead of
the example's shifted sums. Exit 77 when numpy is missing (the test skips).
"""

import json
import os
import sys

try:
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view
except ImportError:
    sys.exit(77)

SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=np.float64) / 8.0
CENTRAL_X = np.array([[0, 0, 0], [-1, 0, 1], [0, 0, 0]], dtype=np.float64) / 2.0


def magnitude(plane, operator, scale, top):
    kx = SOBEL_X if operator == "sobel" else CENTRAL_X
    ky = kx.T
    windows = sliding_window_view(np.pad(plane.astype(np.float64), 1, mode="edge"), (3, 3))
    gx = np.einsum("ijkl,kl->ij", windows, kx)
    gy = np.einsum("ijkl,kl->ij", windows, ky)
    value = np.hypot(gx, gy) * scale
    return np.minimum(np.maximum(np.floor(value + 0.5), 0), top)


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)
    for c in cases:
        dtype = np.uint8 if c["bytes"] == 1 else np.uint16
        top = 255 if c["bytes"] == 1 else 65535
        raw = np.fromfile(os.path.join(d, c["name"] + ".in"), dtype=dtype)
        img = raw.reshape(c["height"], c["width"], c["channels"])
        out = img.copy()
        x, y, w, h = c["region"]
        colours = c["channels"] - (1 if c["alpha"] else 0)
        for ch in range(colours):
            out[y:y + h, x:x + w, ch] = magnitude(img[y:y + h, x:x + w, ch], c["operator"],
                                                  c["scale"], top)
        out.tofile(os.path.join(d, c["name"] + ".ref"))
    print(json.dumps({"cases": len(cases)}))


main()
