#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""ps33-display.py CASES OUT — the grey display pipeline of DICOM PS3.3, computed independently
of Lightbox, for the display tests.

CASES holds one case per line, `key=value` tokens separated by spaces:
  bits=8|16            sample size: the table has 2^bits entries, one per sample
  offset=N             sample − stored value (32768 for signed sources held as offset binary)
  slope=S intercept=B  a rescale (Modality LUT, PS3.3 C.11.1), or
  mlut=FIRST,BITS,E0,E1,…   a Modality LUT Sequence item (descriptor first/bits and the data)
  function=LINEAR|LINEAR_EXACT|SIGMOID center=C width=W   the VOI window (C.11.2.1.2/3), or
  vlut=FIRST,BITS,E0,E1,…   a VOI LUT Sequence item (C.11.2.1.1)
  mono1=1              MONOCHROME1 (C.7.6.3.1.2: the minimum is white)
  invert=1             the user's Invert, relative to the photometric interpretation

OUT receives, for every case in order, 2^bits bytes: the 8-bit display value of each sample.

The rescale and the window functions are pydicom's (apply_modality_lut, apply_windowing,
which implement PS3.3 C.11.1 and C.11.2.1.2/3); the window is given the output range 0 … 255
by handing apply_windowing a data set whose stored values are unsigned 8-bit. What pydicom 2.3
does not do is written out here from the standard:
  * LINEAR with a width below 1, which PS3.3 does not define (pydicom refuses it): taken as
    width 1, a step at c − 0.5 (what Lightbox documents);
  * LUT tables: pydicom makes a 'uint<bits>' array (no such type for 12 bits) and indexes
    8-bit VOI tables through an 8-bit array, which wraps. A VOI table's output
    0 … 2^bits − 1 is scaled to 0 … 255.
Then y is rounded to the nearest byte (halves up), clamped, and inverted for MONOCHROME1 xor
Invert.
"""
import sys
import warnings

import numpy as np
from pydicom.dataset import Dataset
from pydicom.pixel_data_handlers.util import apply_modality_lut, apply_windowing

warnings.simplefilter('ignore')


def parse_lut(text):
    v = [int(x) for x in text.split(',')]
    return v[0], v[1], np.array(v[2:], dtype=np.int64)


def lookup(x, lut):
    """A LUT Sequence item (PS3.3 C.11.1.1, C.11.2.1.1): inputs below the first mapped value
    take the first entry, inputs past the table the last."""
    first, bits, data = parse_lut(lut)
    idx = np.clip(np.floor(x).astype(np.int64) - first, 0, len(data) - 1)
    return data[idx].astype(np.float64), bits


def modality(stored, case):
    """PS3.3 C.11.1: the rescale through pydicom, a table from the standard."""
    ds = Dataset()
    ds.PhotometricInterpretation = 'MONOCHROME2'
    if 'mlut' in case:
        return lookup(stored, case['mlut'])[0]
    if 'slope' in case:
        ds.RescaleSlope = float(case['slope'])
        ds.RescaleIntercept = float(case['intercept'])
        return apply_modality_lut(stored, ds)
    return stored.astype(np.float64)


def voi(x, case):
    """PS3.3 C.11.2 to 0 … 255, not yet rounded."""
    if 'vlut' in case:
        y, bits = lookup(x, case['vlut'])
        return y * 255.0 / (2 ** bits - 1)
    c, w = float(case['center']), float(case['width'])
    fn = case.get('function', 'LINEAR')
    if fn == 'LINEAR' and w < 1:
        w = 1.0
    ds = Dataset()
    ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsStored = 8
    ds.PixelRepresentation = 0
    ds.WindowCenter = c
    ds.WindowWidth = w
    ds.VOILUTFunction = fn
    return apply_windowing(x.copy(), ds)


def main():
    cases = [dict(tok.split('=', 1) for tok in line.split())
             for line in open(sys.argv[1]) if line.strip()]
    with open(sys.argv[2], 'wb') as out:
        for case in cases:
            samples = np.arange(2 ** int(case['bits']), dtype=np.int64)
            stored = samples - int(case.get('offset', 0))
            y = voi(modality(stored, case), case)
            v = np.clip(np.floor(y + 0.5), 0, 255).astype(np.uint8)
            if (case.get('mono1') == '1') != (case.get('invert') == '1'):
                v = 255 - v
            out.write(v.tobytes())


main()
