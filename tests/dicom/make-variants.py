#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-variants.py SRCDIR OUTDIR — variants of real DICOM files that exercise the value model,
with what they mean computed independently by pydicom and numpy.

From CT_small.dcm and MR_small.dcm (SRCDIR) it makes, in a study of their own, one instance
per variant: signed with negative stored values (and junk above HighBit), the same image
unsigned with the intercept moved, MONOCHROME1, pixel padding with a range limit, SIGMOID,
several windows with explanations, an MR whose RescaleType is US, a slope of 0.5, a Modality
LUT Sequence, a VOI LUT Sequence (and a large one of 65536 entries), the Presentation LUT
Shapes IDENTITY and INVERSE with MONOCHROME1 and MONOCHROME2, and lossy-compression history.
For each NAME it writes:
  NAME.dcm      the Part 10 file (explicit VR little endian)
  NAME.json     its data set in the DICOM JSON model, without Pixel Data (what WADO-RS sends)
  NAME.frame    the Pixel Data bytes
  NAME.values   the real-world value of every pixel, float64 little endian, row by row
  NAME.padding  one byte per pixel, 1 on pixel padding
and variants.ini: per variant the attributes the value model must carry.

Colour images with lossy-compression history, in colour.ini (section per NAME: lossy,
lossy_ratios, lossy_methods as a derived image must carry them, PS3.3 C.7.6.1.1.5), NAME.dcm
each: rgb-lossy (SC_rgb_small_odd.dcm), ybr-lossy (SC_ybr_full_422_uncompressed.dcm),
palette-lossy (CT_small's top byte through a palette), and jpeg-colour (SC_rgb_jpeg.dcm as it
is: stored in JPEG baseline, "01" with its ratio and method).

Multi-frame objects, with what each frame means in multiframe.ini (section per object, keys
frame.N.*) and NAME-fN.values per frame:
  mf-ct         five frames of CT_small (stored + 40 × (N − 1)), top-level rescale and window
  enhanced-ct   Enhanced CT Image Storage, three frames: the rescale (stored 175 is −849 HU),
                window and pixel spacing only in the Shared and Per-frame Functional Groups
                (PS3.3 C.7.6.16), frames 2 and 3 overriding some of them; NAME-fN.dcm is
                frame N alone as a single-frame CT with its rescale at the top level
  enhanced-ct-missing-group, enhanced-ct-short-per-frame  broken ones (bad = the frame and the
                attribute the error must name)
The expected rescale of a frame is read by pydicom from the frame's Per-frame Functional Groups
item, else the Shared one (PS3.3 C.7.6.16.1), and applied in numpy.

Real-world values: stored values are masked to BitsStored below HighBit and sign-extended
(PS3.5 8.1.1; pydicom 2.3 does neither for native data), then pydicom's apply_modality_lut
(PS3.3 C.11.1). Padding: stored values between PixelPaddingValue and PixelPaddingRangeLimit
(PS3.3 C.7.5.1.1.2).
"""
import configparser
import json
import os
import shutil
import sys
import warnings

import numpy as np
import pydicom
from pydicom.dataset import Dataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dicom_reference import multi, padding_mask, real_values, stored_values  # noqa: E402

warnings.simplefilter('ignore')
SRC, OUT = sys.argv[1], sys.argv[2]
STUDY = generate_uid(entropy_srcs=['lightbox value model variants'])


def load(name):
    return pydicom.dcmread(os.path.join(SRC, name))


def set_pixels(ds, stored, bits_stored, signed, junk=False):
    """Stored values into Pixel Data (16 bits allocated, HighBit = BitsStored − 1), with
    random junk above HighBit when asked (overlay bits in old files)."""
    ds.BitsAllocated = 16
    ds.BitsStored = bits_stored
    ds.HighBit = bits_stored - 1
    ds.PixelRepresentation = 1 if signed else 0
    lo, hi = (-(1 << (bits_stored - 1)), (1 << (bits_stored - 1)) - 1) if signed \
        else (0, (1 << bits_stored) - 1)
    assert stored.min() >= lo and stored.max() <= hi, (stored.min(), stored.max())
    words = stored.astype(np.int64) & ((1 << bits_stored) - 1)
    if junk and bits_stored < 16:
        rng = np.random.default_rng(25)
        words |= rng.integers(0, 1 << (16 - bits_stored), stored.shape) << bits_stored
    ds.PixelData = words.astype('<u2').tobytes()
    ds['PixelData'].VR = 'OW'


def clear_values(ds):
    for kw in ('RescaleSlope', 'RescaleIntercept', 'RescaleType', 'WindowCenter', 'WindowWidth',
               'WindowCenterWidthExplanation', 'VOILUTFunction', 'ModalityLUTSequence',
               'VOILUTSequence', 'PixelPaddingValue', 'PixelPaddingRangeLimit',
               'LossyImageCompression', 'LossyImageCompressionRatio',
               'LossyImageCompressionMethod', 'PresentationLUTShape'):
            if kw in ds:
                del ds[kw]


def lut_item(first, bits, data, explanation=None, signed=False):
    item = Dataset()
    item.add_new(0x00283002, 'SS' if signed else 'US', [len(data) % 65536, first, bits])
    if explanation:
        item.LUTExplanation = explanation
    item.add_new(0x00283006, 'OW', np.asarray(data, '<u2').tobytes())
    return item


variants = {}


def save(name, ds):
    """NAME.dcm: @ds as an instance of the variants' study, explicit VR little endian."""
    ds.StudyInstanceUID = STUDY
    ds.SeriesInstanceUID = generate_uid(entropy_srcs=[name, 'series'])
    ds.SOPInstanceUID = generate_uid(entropy_srcs=[name])
    ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.SeriesDescription = 'value model: ' + name
    ds.save_as(os.path.join(OUT, name + '.dcm'), write_like_original=False)


def variant(name, ds, expect):
    save(name, ds)

    values = real_values(ds)
    pad = padding_mask(ds)
    values.astype('<f8').tofile(os.path.join(OUT, name + '.values'))
    pad.tofile(os.path.join(OUT, name + '.padding'))
    open(os.path.join(OUT, name + '.frame'), 'wb').write(ds.PixelData)
    js = ds.to_json_dict(bulk_data_threshold=1 << 30)
    del js['7FE00010']
    json.dump([js], open(os.path.join(OUT, name + '.json'), 'w'))

    g = {'signed': 'true' if ds.PixelRepresentation else 'false',
         'bits_stored': str(ds.BitsStored), 'padding_pixels': str(int(pad.sum())),
         'monochrome1': 'true' if ds.PhotometricInterpretation == 'MONOCHROME1' else 'false',
         'function': str(ds.get('VOILUTFunction', 'LINEAR')),
         'presentation': str(ds.get('PresentationLUTShape', '')),
         'n_voi_luts': str(len(ds.get('VOILUTSequence', [])))}
    wc, ww = multi(ds, 'WindowCenter'), multi(ds, 'WindowWidth')
    if wc:
        ex = multi(ds, 'WindowCenterWidthExplanation')
        g['window_centers'] = ';'.join(repr(float(x)) for x in wc)
        g['window_widths'] = ';'.join(repr(float(x)) for x in ww)
        g['window_explanations'] = ';'.join(ex)
    g.update(expect)
    variants[name] = g


os.makedirs(OUT, exist_ok=True)
ct, mr = load('CT_small.dcm'), load('MR_small.dcm')
ct_stored = stored_values(ct)   # 128 … 2191, HU = stored − 1024

# Signed with negative stored values: stored = HU (intercept 0), 12 bits, junk in bits 12–15.
# A block of exactly 0 HU beside one of −1 HU: a filter on raw int16 bits mixes 0 with 65535.
hu = ct_stored - 1024
hu[10:40, 10:40] = 0
hu[10:40, 40:70] = -1
ds = load('CT_small.dcm')
clear_values(ds)
set_pixels(ds, hu, 12, True, junk=True)
ds.RescaleSlope, ds.RescaleIntercept = 1, 0
variant('ct-signed-negative', ds, {'units': 'HU', 'decimals': '0'})

# The same image unsigned: stored = HU + 2048, intercept −2048: the same real-world values.
ds = load('CT_small.dcm')
clear_values(ds)
set_pixels(ds, hu + 2048, 12, False)
ds.RescaleSlope, ds.RescaleIntercept = 1, -2048
variant('ct-unsigned-shifted', ds, {'units': 'HU', 'decimals': '0'})

# MONOCHROME1 (a CR: the minimum is white), no rescale, a window.
ds = load('CT_small.dcm')
clear_values(ds)
set_pixels(ds, ct_stored, 12, False)
ds.PhotometricInterpretation = 'MONOCHROME1'
ds.Modality = 'CR'
ds.WindowCenter, ds.WindowWidth = 1200, 1800
variant('cr-monochrome1', ds, {'units': '', 'decimals': '0'})

# Pixel padding −2000 … −1900 around a signed CT (HU = stored); −1899 is not padding.
pad_hu = hu.copy()
pad_hu[:, :8] = -2000
pad_hu[:, 8:12] = -1950
pad_hu[:, 12] = -1899
ds = load('CT_small.dcm')
clear_values(ds)
set_pixels(ds, pad_hu, 16, True)
ds.RescaleSlope, ds.RescaleIntercept = 1, 0
ds.add_new(0x00280120, 'SS', -2000)
ds.add_new(0x00280121, 'SS', -1900)
variant('ct-padding', ds, {'units': 'HU', 'decimals': '0', 'padding_lo': '-2000',
                           'padding_hi': '-1900'})

# SIGMOID
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
ds.WindowCenter, ds.WindowWidth = 40, 400
ds.VOILUTFunction = 'SIGMOID'
variant('ct-sigmoid', ds, {'units': 'HU', 'decimals': '0'})

# Several windows with their explanations.
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
ds.WindowCenter, ds.WindowWidth = [40, -600, 400.5], [400, 1500, 1800]
ds.WindowCenterWidthExplanation = ['SOFT TISSUE', 'LUNG', 'BONE']
variant('ct-windows', ds, {'units': 'HU', 'decimals': '0'})

# An MR with a rescale of type US (unspecified): not Hounsfield units.
ds = load('MR_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept, ds.RescaleType = 1, 0, 'US'
ds.WindowCenter, ds.WindowWidth = 600, 1600
variant('mr-rescale-us', ds, {'units': '', 'decimals': '0'})

# A slope of 0.5: values in half units, shown with one decimal.
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 0.5, -512
variant('ct-slope-half', ds, {'units': 'HU', 'decimals': '1'})

# A Modality LUT Sequence (16-bit entries, so pydicom applies it): a gamma curve from stored
# value 100, optical density.
ds = load('CT_small.dcm')
clear_values(ds)
set_pixels(ds, ct_stored, 12, False)
data = (65535 * (np.arange(2000) / 1999.0) ** 0.6).astype(np.int64)
item = lut_item(100, 16, data)
item.ModalityLUTType = 'OD'
ds.ModalityLUTSequence = [item]
variant('ct-modality-lut', ds, {'units': 'OD', 'decimals': '0'})

# A VOI LUT Sequence after the rescale, from −1024 HU, 12-bit output.
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
vdata = (4095 / (1 + np.exp(-(np.arange(3000) - 1100) / 80.0))).astype(np.int64)
ds.VOILUTSequence = [lut_item(-1024, 12, vdata, 'SOFT TISSUE LUT', signed=True)]
variant('ct-voi-lut', ds, {'units': 'HU', 'decimals': '0'})

# A large VOI LUT Sequence: 65536 entries (descriptor 0) of 16 bits from −32768, a gamma
# curve over −200 … 400 HU. With a second, small one: the display picks either.
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
x = np.arange(65536) - 32768
large = (65535 * np.clip((x + 200) / 600.0, 0, 1) ** 0.7).astype(np.int64)
ds.VOILUTSequence = [lut_item(-32768, 16, large, 'LARGE GAMMA LUT', signed=True),
                     lut_item(-1024, 12, vdata, 'SOFT TISSUE LUT', signed=True)]
variant('ct-voi-lut-large', ds, {'units': 'HU', 'decimals': '0'})

# Presentation LUT Shape (PS3.3 C.7.6.1, C.11.6.1.2) with either photometric interpretation:
# INVERSE with MONOCHROME1 as the standard has it (one inversion, not two), IDENTITY with
# MONOCHROME2, and the two combinations found in the wild that the standard's "shall" rules
# out, where the shape still says what the P-Values are.
for name, photometric, shape in (('cr-mono1-inverse', 'MONOCHROME1', 'INVERSE'),
                                 ('dx-mono2-identity', 'MONOCHROME2', 'IDENTITY'),
                                 ('dx-mono2-inverse', 'MONOCHROME2', 'INVERSE'),
                                 ('cr-mono1-identity', 'MONOCHROME1', 'IDENTITY')):
    ds = load('CT_small.dcm')
    clear_values(ds)
    set_pixels(ds, ct_stored, 12, False)
    ds.PhotometricInterpretation = photometric
    ds.Modality = name[:2].upper()
    ds.WindowCenter, ds.WindowWidth = 1200, 1800
    ds.PresentationLUTShape = shape
    variant(name, ds, {'units': '', 'decimals': '0'})

# Lossy history: compressed twice before, ratios and methods.
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
ds.LossyImageCompression = '01'
ds.LossyImageCompressionRatio = [10, 2.5]
ds.LossyImageCompressionMethod = ['ISO_10918_1', 'ISO_15444_1']
variant('ct-lossy', ds, {'units': 'HU', 'decimals': '0', 'lossy_ratios': '10\\2.5',
                         'lossy_methods': 'ISO_10918_1\\ISO_15444_1'})



def write_ini(groups, filename):
    ini = configparser.ConfigParser(interpolation=None)
    ini.optionxform = str
    # Read with GLib's GKeyFile, whose strings escape a backslash (the DICOM value separator)
    # as "\\": GLib 2.84 refuses an unknown escape such as the "\2" of 10\2.5 (2.74 let it pass).
    for name, g in groups.items():
        ini[name] = {key: value.replace('\\', '\\\\') for key, value in g.items()}
    with open(os.path.join(OUT, filename), 'w') as f:
        ini.write(f)


write_ini(variants, 'variants.ini')

# ---- colour with lossy history ------------------------------------------------------------

LOSSY_METHODS = {'1.2.840.10008.1.2.4.50': 'ISO_10918_1', '1.2.840.10008.1.2.4.51': 'ISO_10918_1'}
colour = {}


def colour_variant(name, ds, copy_of=None):
    """A colour instance of the variants' study (or, @copy_of, a file copied as it is, in its
    compressed transfer syntax); what its derived image must say of its lossy history: the
    data set's, and a lossy transfer syntax's method when the data set names none (PS3.3
    C.7.6.1.1.5)."""
    if copy_of is not None:
        shutil.copyfile(os.path.join(SRC, copy_of), os.path.join(OUT, name + '.dcm'))
    else:
        save(name, ds)
    syntax_method = LOSSY_METHODS.get(str(ds.file_meta.TransferSyntaxUID))
    lossy = str(ds.get('LossyImageCompression', '')) == '01' or syntax_method is not None
    methods = multi(ds, 'LossyImageCompressionMethod') if lossy else []
    if lossy and not methods and syntax_method:
        methods = [syntax_method]
    ratios = multi(ds, 'LossyImageCompressionRatio') if lossy else []
    colour[name] = {'lossy': '01' if lossy else '',
                    'lossy_ratios': '\\'.join('%g' % float(r) for r in ratios),
                    'lossy_methods': '\\'.join(methods)}


def lossy_history(ds, ratios, methods):
    ds.LossyImageCompression = '01'
    ds.LossyImageCompressionRatio = ratios
    ds.LossyImageCompressionMethod = methods


ds = load('SC_rgb_small_odd.dcm')
lossy_history(ds, [12.5], ['ISO_10918_1'])
colour_variant('rgb-lossy', ds)

ds = load('SC_ybr_full_422_uncompressed.dcm')
lossy_history(ds, [10, 2.5], ['ISO_10918_1', 'ISO_15444_1'])
colour_variant('ybr-lossy', ds)

# PALETTE COLOR (PS3.3 C.7.6.3.1.5): CT_small's stored values' top 8 of 12 bits as indices
# into a 256-entry 16-bit palette.
ds = load('CT_small.dcm')
clear_values(ds)
index = (ct_stored >> 4).astype(np.uint8)
ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 8, 8, 7, 0
ds.PixelData = index.tobytes()
ds['PixelData'].VR = 'OB'
ds.PhotometricInterpretation = 'PALETTE COLOR'
ramp = np.arange(256)
for colour_name, curve in (('Red', ramp), ('Green', 255 - ramp), ('Blue', (ramp * 2) % 256)):
    ds.add_new(pydicom.datadict.tag_for_keyword(colour_name + 'PaletteColorLookupTableDescriptor'),
               'US', [256, 0, 16])
    ds.add_new(pydicom.datadict.tag_for_keyword(colour_name + 'PaletteColorLookupTableData'),
               'OW', (curve.astype(np.int64) * 257).astype('<u2').tobytes())
ds.Modality = 'OT'
lossy_history(ds, [4], ['ISO_14495_1'])
colour_variant('palette-lossy', ds)

colour_variant('jpeg-colour', load('SC_rgb_jpeg.dcm'), copy_of='SC_rgb_jpeg.dcm')

write_ini(colour, 'colour.ini')

# ---- multi-frame objects ------------------------------------------------------------------

ENHANCED_CT = '1.2.840.10008.5.1.4.1.1.2.1'
N_FRAMES = 5
mf_stored = [ct_stored + 40 * k for k in range(N_FRAMES)]


def group(**attrs):
    item = Dataset()
    for k, v in attrs.items():
        setattr(item, k, v)
    return item


def fg_value(ds, frame, seq, keyword):
    """Attribute @keyword of functional group @seq for 0-based @frame: the per-frame item's
    group, else the shared one (PS3.3 C.7.6.16.1)."""
    for holder in (ds.PerFrameFunctionalGroupsSequence[frame],
                   ds.SharedFunctionalGroupsSequence[0]):
        if seq in holder:
            return getattr(holder[seq].value[0], keyword)
    return None


def multiframe(name, ds, frames, enhanced, bad=None):
    ds.StudyInstanceUID = STUDY
    ds.SeriesInstanceUID = generate_uid(entropy_srcs=[name, 'series'])
    ds.SOPInstanceUID = generate_uid(entropy_srcs=[name])
    ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
    ds.file_meta.MediaStorageSOPClassUID = ds.SOPClassUID
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.SeriesDescription = 'multi-frame: ' + name
    ds.NumberOfFrames = len(frames)
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 0
    ds.PixelData = np.stack(frames).astype('<u2').tobytes()
    ds['PixelData'].VR = 'OW'
    ds.save_as(os.path.join(OUT, name + '.dcm'), write_like_original=False)
    js = ds.to_json_dict(bulk_data_threshold=1 << 30)
    del js['7FE00010']
    json.dump([js], open(os.path.join(OUT, name + '.json'), 'w'))
    g = {'frames': str(len(frames))}
    if bad:
        g['bad'] = bad
        mf[name] = g
        return
    for k, stored in enumerate(frames):
        n = k + 1
        open(os.path.join(OUT, '%s-f%d.frame' % (name, n)), 'wb').write(
            stored.astype('<u2').tobytes())
        if enhanced:
            slope = float(fg_value(ds, k, 'PixelValueTransformationSequence', 'RescaleSlope'))
            icpt = float(fg_value(ds, k, 'PixelValueTransformationSequence',
                                  'RescaleIntercept'))
            wc = float(fg_value(ds, k, 'FrameVOILUTSequence', 'WindowCenter'))
            ww = float(fg_value(ds, k, 'FrameVOILUTSequence', 'WindowWidth'))
            sp = fg_value(ds, k, 'PixelMeasuresSequence', 'PixelSpacing')
        else:
            slope, icpt = float(ds.RescaleSlope), float(ds.RescaleIntercept)
            wc, ww, sp = float(ds.WindowCenter), float(ds.WindowWidth), ds.PixelSpacing
        (stored.astype(np.float64) * slope + icpt).astype('<f8').tofile(
            os.path.join(OUT, '%s-f%d.values' % (name, n)))
        if enhanced:
            # the frame alone as a single-frame CT with its values at the top level: what a
            # derived image of this frame must mean (check-derived.py SOURCE)
            one = load('CT_small.dcm')
            clear_values(one)
            set_pixels(one, stored, 16, False)
            one.RescaleSlope, one.RescaleIntercept, one.RescaleType = slope, icpt, 'HU'
            one.save_as(os.path.join(OUT, '%s-f%d.dcm' % (name, n)), write_like_original=False)
        g['frame.%d.slope' % n] = repr(slope)
        g['frame.%d.intercept' % n] = repr(icpt)
        g['frame.%d.window_center' % n] = repr(wc)
        g['frame.%d.window_width' % n] = repr(ww)
        # PixelSpacing is row \ column spacing; Lightbox keeps x (column) and y (row)
        g['frame.%d.spacing_x' % n] = repr(float(sp[1]))
        g['frame.%d.spacing_y' % n] = repr(float(sp[0]))
    mf[name] = g


mf = {}

# A plain multi-frame CT: the values at the top level, the same for every frame.
ds = load('CT_small.dcm')
clear_values(ds)
ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
ds.WindowCenter, ds.WindowWidth = 40, 400
ds.PixelSpacing = [0.66, 0.66]
ds.FrameTime = 40
multiframe('mf-ct', ds, mf_stored, False)


def enhanced_ct():
    """CT_small as an Enhanced CT whose meaning lives only in the functional groups: stored
    175 is −849 HU by the shared rescale (intercept −1024); frame 2 has its own window and
    pixel spacing, frame 3 its own rescale (slope 2, intercept −2048)."""
    ds = load('CT_small.dcm')
    clear_values(ds)
    for kw in ('PixelSpacing', 'SliceThickness', 'ImagePositionPatient',
               'ImageOrientationPatient'):
        if kw in ds:
            del ds[kw]
    ds.SOPClassUID = ENHANCED_CT
    ds.ImageType = ['ORIGINAL', 'PRIMARY', 'AXIAL', 'NONE']
    shared = Dataset()
    shared.PixelMeasuresSequence = [group(PixelSpacing=[0.66, 0.66], SliceThickness=5)]
    shared.PixelValueTransformationSequence = [
        group(RescaleIntercept=-1024, RescaleSlope=1, RescaleType='HU')]
    shared.FrameVOILUTSequence = [group(WindowCenter=40, WindowWidth=400)]
    ds.SharedFunctionalGroupsSequence = [shared]
    per = [Dataset() for _ in range(3)]
    per[1].FrameVOILUTSequence = [group(WindowCenter=-600, WindowWidth=1500,
                                        WindowCenterWidthExplanation='LUNG')]
    per[1].PixelMeasuresSequence = [group(PixelSpacing=[0.5, 0.4], SliceThickness=5)]
    per[2].PixelValueTransformationSequence = [
        group(RescaleIntercept=-2048, RescaleSlope=2, RescaleType='HU')]
    for k, item in enumerate(per):
        item.FrameContentSequence = [group(InStackPositionNumber=k + 1)]
    ds.PerFrameFunctionalGroupsSequence = per
    return ds


multiframe('enhanced-ct', enhanced_ct(), mf_stored[:3], True)
mf['enhanced-ct']['stored_175'] = '-849'

# Broken: the rescale given per frame for frames 1 and 3 only, and not shared.
ds = enhanced_ct()
del ds.SharedFunctionalGroupsSequence[0].PixelValueTransformationSequence
ds.PerFrameFunctionalGroupsSequence[0].PixelValueTransformationSequence = [
    group(RescaleIntercept=-1024, RescaleSlope=1, RescaleType='HU')]
multiframe('enhanced-ct-missing-group', ds, mf_stored[:3], True,
           bad='2:PixelValueTransformationSequence')

# Broken: three frames, two per-frame items.
ds = enhanced_ct()
ds.PerFrameFunctionalGroupsSequence = ds.PerFrameFunctionalGroupsSequence[:2]
multiframe('enhanced-ct-short-per-frame', ds, mf_stored[:3], True,
           bad='3:PerFrameFunctionalGroupsSequence')

write_ini(mf, 'multiframe.ini')
