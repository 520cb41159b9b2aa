#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-derived.py DERIVED.dcm [SOURCE.dcm] — what a derived image Lightbox wrote means, read
independently with pydicom (dicom_reference.py), as key=value lines:
  photometric, signed, bits_stored, units (RescaleType or ModalityLUTType), windows
  (centre/width/explanation;…), function, n_voi_luts, presentation (PresentationLUTShape),
  padding_pixels (grey images only), lossy, lossy_ratios, lossy_methods, frame
  (ReferencedFrameNumber of the source reference)
With SOURCE: the real-world value and the padding of every pixel must be the source's (exit 1
naming the first pixel that differs), and the presentation the same: inverted (the minimum
white) when the Presentation LUT Shape says INVERSE or, without one, for MONOCHROME1 (PS3.3
C.11.6.1.2, C.7.6.3.1.2)."""
import os
import sys
import warnings

import numpy as np
import pydicom

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dicom_reference import multi, padding_mask, real_values  # noqa: E402

warnings.simplefilter('ignore')
d = pydicom.dcmread(sys.argv[1])
units = d.get('RescaleType') or (d.ModalityLUTSequence[0].get('ModalityLUTType')
                                 if 'ModalityLUTSequence' in d else '')
windows = zip(multi(d, 'WindowCenter'), multi(d, 'WindowWidth'),
              multi(d, 'WindowCenterWidthExplanation') or [''] * len(multi(d, 'WindowCenter')))
frame = ''
if 'SourceImageSequence' in d and 'ReferencedFrameNumber' in d.SourceImageSequence[0]:
    frame = str(d.SourceImageSequence[0].ReferencedFrameNumber)
print('photometric=%s' % d.PhotometricInterpretation)
print('signed=%d' % d.PixelRepresentation)
print('bits_stored=%d' % d.BitsStored)
print('units=%s' % (units or ''))
print('windows=%s' % ';'.join('%r/%r/%s' % (float(c), float(w), e) for c, w, e in windows))
print('function=%s' % d.get('VOILUTFunction', 'LINEAR'))
print('n_voi_luts=%d' % len(d.get('VOILUTSequence', [])))
print('presentation=%s' % d.get('PresentationLUTShape', ''))
if d.SamplesPerPixel == 1:
    print('padding_pixels=%d' % int(padding_mask(d).sum()))
print('lossy=%s' % d.get('LossyImageCompression', ''))
print('lossy_ratios=%s' % '\\'.join('%g' % float(x) for x in multi(d, 'LossyImageCompressionRatio')))
print('lossy_methods=%s' % '\\'.join(multi(d, 'LossyImageCompressionMethod')))
print('frame=%s' % frame)

if len(sys.argv) > 2:
    def inverse(ds):
        shape = str(ds.get('PresentationLUTShape', ''))
        return shape == 'INVERSE' if shape else ds.PhotometricInterpretation == 'MONOCHROME1'

    s = pydicom.dcmread(sys.argv[2])
    if inverse(s) != inverse(d):
        sys.exit('%s %s, the source has %s %s: not presented the same'
                 % (d.PhotometricInterpretation, d.get('PresentationLUTShape', ''),
                    s.PhotometricInterpretation, s.get('PresentationLUTShape', '')))
    for what, a, b in (('real-world value', real_values(d), real_values(s)),
                       ('padding', padding_mask(d), padding_mask(s))):
        diff = np.argwhere(a != b)
        if len(diff):
            y, x = diff[0]
            sys.exit('%s at x %d y %d: %r, the source has %r (%d pixels differ)'
                     % (what, x, y, a[y, x], b[y, x], len(diff)))
    print('same_as_source=1')
