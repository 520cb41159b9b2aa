#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent reference for plugins/python/subtract.py and downsample2x.py
(test-python-filter.c, /python-filter/aux-and-geometry).

Reads DIR/cases.json and DIR/NAME.in (and NAME.aux for a subtraction), packed rows; writes
DIR/NAME.ref. Computed from the formulas the examples' docstrings state, another way: the
subtraction in float64 with minimum/maximum, the block mean with a reshape and mean() over
the block axes. Exit 77 when numpy is missing (the test skips).
"""

import json
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(77)


def load(d, name, c):
    dtype = np.uint8 if c["bytes"] == 1 else np.uint16
    raw = np.fromfile(os.path.join(d, name), dtype=dtype)
    return raw.reshape(c["height"], c["width"], c["channels"])


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)
    for c in cases:
        top = 255.0 if c["bytes"] == 1 else 65535.0
        a = load(d, c["name"] + ".in", c)
        if c["kind"] == "subtract":
            b = load(d, c["name"] + ".aux", c)
            out = a.copy()
            x, y, w, h = c["region"]
            colours = c["channels"] - (1 if c["alpha"] else 0)
            value = (a[y:y + h, x:x + w, :colours].astype(np.float64)
                     - b[y:y + h, x:x + w, :colours] + c["offset"])
            out[y:y + h, x:x + w, :colours] = np.minimum(np.maximum(value, 0.0), top)
        else:
            oh, ow = c["height"] // 2, c["width"] // 2
            blocks = a[:2 * oh, :2 * ow].astype(np.float64).reshape(oh, 2, ow, 2, c["channels"])
            out = np.floor(blocks.mean(axis=(1, 3)) + 0.5).astype(a.dtype)
        out.tofile(os.path.join(d, c["name"] + ".ref"))
    print(json.dumps({"cases": len(cases)}))


main()
