#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""display-reference.py FILE VOI OUT — the 8-bit grey value a display shows for every pixel of
the DICOM image FILE, computed from the standard with pydicom and numpy, independently of
Lightbox, for the display tests.

VOI chooses the VOI transformation (PS3.3 C.11.2): "window:K" the K-th WindowCenter/
WindowWidth pair with the file's VOILUTFunction (pydicom's apply_windowing, which implements
C.11.2.1.2/3), "lut:K" the K-th item of the VOI LUT Sequence (C.11.2.1.1, written out here).
OUT receives Rows × Columns bytes, row by row.

The pipeline:
  * stored values, masked and sign-extended (PS3.5 8.1.1), through the Modality LUT
    (pydicom's apply_modality_lut, PS3.3 C.11.1): dicom_reference.real_values;
  * VOI, to the range 0 … 255: a window is given that range by handing apply_windowing a data
    set of unsigned 8-bit stored values; a VOI LUT maps an input x to entry
    clip(floor(x) − first, 0, n − 1) (inputs below the first mapped value take the first
    entry, past the table the last), its output 0 … 2^bits − 1 scaled to 0 … 255;
  * rounded to the nearest byte, halves up;
  * the Presentation LUT (C.11.6.1.2): INVERSE means P-Value = 255 − value, IDENTITY none.
    The image's Presentation LUT Shape (C.7.6.1), when present, is the Presentation LUT: with
    it the photometric interpretation is not applied again (PS3.4 N.2.1.4 for presentation
    states: the pipeline's Presentation LUT overrides the Photometric Interpretation). Without
    one, MONOCHROME1 means the minimum is white (C.7.6.3.1.2), that is INVERSE.
"""
import os
import sys
import warnings

import numpy as np
import pydicom
from pydicom.dataset import Dataset
from pydicom.pixel_data_handlers.util import apply_windowing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dicom_reference import multi, real_values  # noqa: E402

warnings.simplefilter('ignore')


def voi_lut(x, item):
    """PS3.3 C.11.2.1.1, to 0 … 255 (not rounded)."""
    n, first, bits = (int(v) for v in item.LUTDescriptor)
    if n == 0:
        n = 65536
    raw = item.LUTData
    data = (np.frombuffer(raw, '<u2') if isinstance(raw, bytes) else np.asarray(raw))
    data = data.astype(np.int64)[:n]
    assert len(data) == n, (len(data), n)
    idx = np.clip(np.floor(x).astype(np.int64) - first, 0, n - 1)
    return data[idx] * 255.0 / (2 ** bits - 1)


def window(x, ds, k):
    """PS3.3 C.11.2.1.2/3 through pydicom, to 0 … 255 (not rounded)."""
    w = Dataset()
    w.PhotometricInterpretation = 'MONOCHROME2'
    w.BitsStored = 8
    w.PixelRepresentation = 0
    w.WindowCenter = float(multi(ds, 'WindowCenter')[k])
    w.WindowWidth = float(multi(ds, 'WindowWidth')[k])
    w.VOILUTFunction = str(ds.get('VOILUTFunction', 'LINEAR'))
    return apply_windowing(x.copy(), w)


def main():
    ds = pydicom.dcmread(sys.argv[1])
    kind, k = sys.argv[2].split(':')
    x = real_values(ds)
    y = voi_lut(x, ds.VOILUTSequence[int(k)]) if kind == 'lut' else window(x, ds, int(k))
    v = np.clip(np.floor(y + 0.5), 0, 255).astype(np.uint8)
    shape = str(ds.get('PresentationLUTShape', ''))
    inverse = shape == 'INVERSE' if shape else ds.PhotometricInterpretation == 'MONOCHROME1'
    if inverse:
        v = 255 - v
    with open(sys.argv[3], 'wb') as out:
        out.write(v.tobytes())


main()
