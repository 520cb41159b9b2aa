#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-png-values.py FILE.dcm OUT.png [FRAME] — what `lightbox-cli convert` wrote against pydicom.

The PNG's samples, read with Pillow, and its lightbox:values text chunk (the value model as a
GVariant text, parsed with GLib's own parser through PyGObject) give real-world values; pydicom's pixel_array of frame FRAME (default 0), masked to BitsStored
and sign-extended in numpy (PS3.5 §8.1.1), times RescaleSlope plus RescaleIntercept, must equal
them. Colour files compare their samples. Exit status 77 without pydicom, numpy or Pillow."""
import sys, warnings

try:
    import numpy as np
    import pydicom
    from PIL import Image
    from gi.repository import GLib
except ImportError as e:
    print('check-png-values.py: %s' % e)
    sys.exit(77)

warnings.simplefilter('ignore')
dcm, png = sys.argv[1], sys.argv[2]
frame = int(sys.argv[3]) if len(sys.argv) > 3 else 0
ds = pydicom.dcmread(dcm)
arr = ds.pixel_array
if int(ds.get('NumberOfFrames', 1) or 1) > 1:
    arr = arr[frame]
stored, alloc = int(ds.BitsStored), int(ds.BitsAllocated)
high = int(ds.get('HighBit', stored - 1))
v = (arr.astype(np.int64) & ((1 << alloc) - 1)) >> (high + 1 - stored)
v &= (1 << stored) - 1
if int(ds.get('PixelRepresentation', 0)) == 1:
    v = np.where(v & (1 << (stored - 1)), v - (1 << stored), v)
slope = float(ds.get('RescaleSlope', 1))
intercept = float(ds.get('RescaleIntercept', 0))

im = Image.open(png)
got = np.array(im).astype(np.int64)
text = getattr(im, 'text', {}) or im.info
# The one place that knows how Lightbox stores values in a PNG (lb-value-model.h): a signed
# source's samples are stored value + 32768, and "rescale" maps stored values to real ones.
model = text.get('lightbox:values')
model = GLib.Variant.parse(None, model, None, None).unpack() if model else {}
if model.get('source', (False, 0))[0]:
    got = got - 32768
if int(ds.SamplesPerPixel) == 1:
    a, b = model.get('rescale', (1.0, 0.0))
    want_real = v * slope + intercept
    got_real = got * a + b
    bad = np.count_nonzero(~np.isclose(want_real, got_real, rtol=0, atol=1e-6))
else:
    bad = np.count_nonzero(v != got)
print('%s: %d of %d values differ' % (png, bad, v.size))
sys.exit(1 if bad else 0)
