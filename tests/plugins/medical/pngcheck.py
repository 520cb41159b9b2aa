# SPDX-License-Identifier: GPL-3.0-or-later
"""What test-subtract.py and test-resample.py share: numbered verdicts, and grey or colour
PNGs of 8 or 16 bits to and from numpy arrays (through PIL)."""

import numpy as np
from PIL import Image


class Verdicts:
    """Prints "ok: …" or "not ok: …" per check and counts the failures."""

    def __init__(self):
        self.failures = 0

    def check(self, ok, what):
        print(("ok: " if ok else "not ok: ") + what)
        if not ok:
            self.failures += 1


def save(arr, path):
    if arr.dtype == np.uint16:
        Image.fromarray(arr, mode="I;16").save(path)
    else:
        Image.fromarray(arr).save(path)


def load(path):
    return np.array(Image.open(path)).astype(np.int64)
