#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-png-values.py FILE.dcm OUT.png [FRAME] — what `lightbox-cli convert` wrote against pydicom.

The PNG's samples, read with Pillow, and its lightbox:values text chunk (the value model as a
GVariant in text form, parsed with GLib's own parser) give real-world values; pydicom's
pixel_array of frame FRAME (default 0; 0-based, as numpy counts), masked to BitsStored and
sign-extended in numpy (PS3.5 §8.1.1), times RescaleSlope plus RescaleIntercept (an enhanced
object's are the frame's, from its functional groups), must equal them, and the model must be
lossy, with the right method, for a lossy file. Colour files compare their samples (YBR_FULL and
YBR_FULL_422 converted to RGB by pydicom). Exit status 77 without pydicom, numpy, Pillow or
PyGObject, or when pydicom has no decoder for the file's transfer syntax."""
import sys, warnings

try:
    import numpy as np
    import pydicom
    from PIL import Image
    from gi.repository import GLib
    from pydicom.pixel_data_handlers.util import convert_color_space
except ImportError as e:
    print('check-png-values.py: %s' % e)
    sys.exit(77)

warnings.simplefilter('ignore')
dcm, png = sys.argv[1], sys.argv[2]
frame = int(sys.argv[3]) if len(sys.argv) > 3 else 0
ds = pydicom.dcmread(dcm)
try:
    arr = ds.pixel_array
except (RuntimeError, NotImplementedError) as e:   # no pydicom handler for the syntax
    print('check-png-values.py: pydicom cannot decode %s: %s' % (dcm, e))
    sys.exit(77)
# pydicom leaves YBR_FULL (and 4:2:2 once expanded) as it is stored; Lightbox shows RGB
if str(ds.PhotometricInterpretation) in ('YBR_FULL', 'YBR_FULL_422'):
    arr = convert_color_space(arr, 'YBR_FULL', 'RGB')
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
# An enhanced object's rescale lives in its functional groups: the frame's Per-frame item,
# else the Shared one (PS3.3 C.7.6.16.1).
for holder in (ds.get('PerFrameFunctionalGroupsSequence', [None] * (frame + 1))[frame],
               (ds.get('SharedFunctionalGroupsSequence') or [None])[0]):
    if holder is not None and 'PixelValueTransformationSequence' in holder:
        pvt = holder.PixelValueTransformationSequence[0]
        slope, intercept = float(pvt.RescaleSlope), float(pvt.RescaleIntercept)
        break

im = Image.open(png)
got = np.array(im).astype(np.int64)
text = getattr(im, 'text', {}) or im.info
# The one place that knows how Lightbox stores values in a PNG (lb-png.c, lb-value-model.h):
# samples of a signed source are offset binary, stored + 32768 ("source": (signed, BitsStored)),
# and "rescale" is RescaleSlope and RescaleIntercept of the stored values.
a, b = 1.0, 0.0
model = text.get('lightbox:values')
if model:
    model = GLib.Variant.parse(None, model, None, None).unpack()
    if model.get('source', (False, 0))[0]:
        got -= 32768
    a, b = model.get('rescale', (1.0, 0.0))
# PS3.3 C.7.6.1.1.5: an image lossy compressed once stays so; the method is the file's when it
# says "01", else that of the lossy transfer syntax it was stored in (C.7.6.1.1.5.1)
LOSSY_METHOD = {'1.2.840.10008.1.2.4.50': 'ISO_10918_1', '1.2.840.10008.1.2.4.51': 'ISO_10918_1',
                '1.2.840.10008.1.2.4.81': 'ISO_14495_1', '1.2.840.10008.1.2.4.91': 'ISO_15444_1'}
lossy_bad = 0
if int(ds.SamplesPerPixel) == 1:
    ts = str(ds.file_meta.TransferSyntaxUID)
    if ds.get('LossyImageCompression') == '01':
        m = ds.get('LossyImageCompressionMethod')
        want_lossy = '\\'.join(m) if isinstance(m, pydicom.multival.MultiValue) else (m or '')
        want_lossy = want_lossy or LOSSY_METHOD.get(ts, '')   # absent: the syntax's
    else:
        want_lossy = LOSSY_METHOD.get(ts)
    got_lossy = model.get('lossy') if model else None
    got_lossy = got_lossy[1] if got_lossy else None
    if got_lossy != want_lossy:
        print('%s: lossy method %r, want %r (transfer syntax %s)' % (png, got_lossy, want_lossy, ts))
        lossy_bad = 1
if int(ds.SamplesPerPixel) == 1:
    want_real = v * slope + intercept
    got_real = got * a + b
    bad = np.count_nonzero(~np.isclose(want_real, got_real, rtol=0, atol=1e-6))
else:
    bad = np.count_nonzero(v != got)
print('%s: %d of %d values differ' % (png, bad, v.size))
sys.exit(1 if bad or lossy_bad else 0)
