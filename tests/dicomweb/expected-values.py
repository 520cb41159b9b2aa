#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""expected-values.py OUT.ini FILE.dcm…  — what the DICOMweb test must find, computed by pydicom.

One group per seeded file ([instance N]) with its UIDs, the labels the store should show for
patient/study/series/instance (the label rules are the store's documented ones, applied here to
pydicom's reading of the file), the pixel module, the value mapping, and the SHA-256 of
pydicom's pixel_array as little-endian int16/uint16 (the decoder must match it bit for bit).
Files pydicom cannot decode here (or Lightbox does not: 32-bit) have no pixels_sha256."""
import configparser, hashlib, sys, warnings
import pydicom
from pydicom.pixel_data_handlers.util import apply_color_lut, convert_color_space

# pydicom warns that 693_J2KI's BitsStored (14) differs from the J2K stream's precision (16);
# the values fit in 14 bits, so the warning says nothing about the pixels.
warnings.simplefilter('ignore')

def s(ds, kw):
    v = ds.get(kw)
    if v is None or str(v).strip() == '':
        return None
    return str(v).strip()

def person(pn):
    if pn is None:
        return None
    alpha = pn.split('=')[0]
    comps = [c.strip() for c in alpha.split('^')]
    out = comps[0]
    if len(comps) > 1 and comps[1]:
        out = (out + ', ' if out else '') + comps[1]
        out += ''.join(' ' + c for c in comps[2:5] if c)
    return out

def date(da):
    if da and len(da) == 8 and da.isdigit():
        return '%s-%s-%s' % (da[:4], da[4:6], da[6:])
    return da

def num(ds, kw):
    """IS values as the JSON model carries them: numbers, so leading zeros go."""
    v = s(ds, kw)
    if v is None:
        return None
    try:
        return str(int(v))
    except ValueError:
        return v

out = configparser.ConfigParser(interpolation=None)
out.optionxform = str
LOSSY_METHOD = {'1.2.840.10008.1.2.4.50': 'ISO_10918_1', '1.2.840.10008.1.2.4.51': 'ISO_10918_1',
                '1.2.840.10008.1.2.4.81': 'ISO_14495_1', '1.2.840.10008.1.2.4.91': 'ISO_15444_1'}

for i, path in enumerate(sys.argv[2:]):
    ds = pydicom.dcmread(path)
    g = {}
    g['file'] = path
    for kw in ('PatientID', 'StudyInstanceUID', 'SeriesInstanceUID', 'SOPInstanceUID',
               'SOPClassUID', 'Modality'):
        g[kw] = s(ds, kw) or ''
    name = person(s(ds, 'PatientName')) or '(no name)'
    g['patient_label'] = '%s (%s)' % (name, s(ds, 'PatientID') or 'no ID')
    sd, sdesc = date(s(ds, 'StudyDate')), s(ds, 'StudyDescription')
    g['study_label'] = (g['StudyInstanceUID'] if sd is None and sdesc is None
                        else '%s %s' % (sd or '(no date)', sdesc or '(no description)'))
    mod, sn, sdesc = s(ds, 'Modality'), num(ds, 'SeriesNumber'), s(ds, 'SeriesDescription')
    if mod is None and sn is None and sdesc is None:
        g['series_label'] = g['SeriesInstanceUID']
    else:
        g['series_label'] = (mod or '(no modality)') + (' #' + sn if sn else '') + ' ' + (sdesc or '(no description)')
    inn = num(ds, 'InstanceNumber')
    g['instance_label'] = '#' + inn if inn else g['SOPInstanceUID']
    g['rows'] = str(ds.Rows)
    g['columns'] = str(ds.Columns)
    g['signed'] = 'true' if ds.get('PixelRepresentation', 0) == 1 else 'false'
    g['photometric'] = s(ds, 'PhotometricInterpretation') or ''
    ts = str(ds.file_meta.TransferSyntaxUID)
    g['transfer_syntax'] = ts
    # what Lightbox decodes: 8/16 allocated bits, grey, RGB, or a colour model it converts to
    # RGB; compressed frames are decoded on the client, whatever the server can transcode
    g['lightbox_supported'] = 'true' if (ds.BitsAllocated in (8, 16) and g['photometric'] in
                                         ('MONOCHROME1', 'MONOCHROME2', 'RGB', 'YBR_FULL',
                                          'YBR_FULL_422', 'YBR_RCT', 'YBR_ICT',
                                          'PALETTE COLOR')) else 'false'
    # PS3.3 C.7.6.1.1.5: lossy once, lossy for good; the method is the file's when it says "01"
    # and gives one, else that of the lossy transfer syntax it is stored in (C.7.6.1.1.5.1)
    if ds.get('LossyImageCompression') == '01':
        m = ds.get('LossyImageCompressionMethod')
        m = '\\'.join(m) if isinstance(m, pydicom.multival.MultiValue) else (m or '')
        g['lossy_method'] = m or LOSSY_METHOD.get(ts, '')
    elif ts in LOSSY_METHOD:
        g['lossy_method'] = LOSSY_METHOD[ts]
    if 'RescaleSlope' in ds or 'RescaleIntercept' in ds:
        g['rescale_slope'] = repr(float(ds.get('RescaleSlope', 1)))
        g['rescale_intercept'] = repr(float(ds.get('RescaleIntercept', 0)))
    if 'WindowCenter' in ds and 'WindowWidth' in ds:
        wc, ww = ds.WindowCenter, ds.WindowWidth
        wc = wc[0] if isinstance(wc, pydicom.multival.MultiValue) else wc
        ww = ww[0] if isinstance(ww, pydicom.multival.MultiValue) else ww
        g['window_center'] = repr(float(wc))
        g['window_width'] = repr(float(ww))
    if 'PixelSpacing' in ds:
        g['spacing_y'] = repr(float(ds.PixelSpacing[0]))
        g['spacing_x'] = repr(float(ds.PixelSpacing[1]))
    try:
        if g['lightbox_supported'] != 'true':
            raise ValueError('not an image Lightbox decodes')
        a = ds.pixel_array
        if a.ndim == 3 and ds.SamplesPerPixel == 1:
            a = a[0]           # first frame
        # colour models come out as RGB: pydicom's own conversions are the reference (its
        # pixel_array gives uncompressed YBR_FULL_422 as YBR_FULL, J2K YBR_RCT/ICT as RGB)
        if g['photometric'] in ('YBR_FULL', 'YBR_FULL_422'):
            a = convert_color_space(a, 'YBR_FULL', 'RGB')
        elif g['photometric'] == 'PALETTE COLOR':
            a = apply_color_lut(a, ds)
        bits = a.dtype.itemsize * 8 if g['photometric'] == 'PALETTE COLOR' else ds.BitsAllocated
        dt = ('<i2' if g['signed'] == 'true' else '<u2') if bits == 16 else 'u1'
        g['pixels_sha256'] = hashlib.sha256(a.astype(dt).tobytes()).hexdigest()
        g['pixels_min'] = str(int(a.min()))
        g['pixels_max'] = str(int(a.max()))
    except Exception as e:     # 32-bit, or compressed without a decoder in this Python
        g['pixels_error'] = str(e)
    out['instance %d' % i] = g
out['summary'] = {'count': str(len(sys.argv) - 2)}
with open(sys.argv[1], 'w') as f:
    out.write(f)
