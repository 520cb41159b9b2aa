#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""codec-reference.py OUTDIR — the compressed frames test-dicom-codec decodes, and what
independent decoders make of them.

Cases are pydicom's compressed test files plus files made here with DCMTK (dcmcjpeg, dcmcjpls,
dcmcrle), GDCM (gdcmconv) and pydicom (palette colour, YBR variants). For each one OUTDIR gets
NAME.json (the data set in the DICOM JSON model, without Pixel Data), NAME.frame (frame 1's
fragments concatenated, or its native bytes) and NAME.expected (the reference samples, little
endian), and cases.ini a group per case:
  kind = decompress  lb_dicom_decompress_frame() must give the stored values DCMTK's decoders
                     (dcmdjpeg +cn, dcmdjpls, dcmdrle) or GDCM's (through pydicom's handler,
                     for JPEG 2000) give: YCbCr stays YCbCr, as the stream holds it
  kind = rgb         lb_dicom_prepare_frame() must give pydicom's convert_color_space() /
                     apply_color_lut() applied to those decoded samples
  tolerance          the largest difference allowed (0 unless a reason is given)
  file, frame        the Part 10 file the case comes from and the frame: opened as a file, it
                     must give the same samples
  signed, monochrome1, padding, lossy_method
                     what the image's value model must say (grey images): PixelRepresentation,
                     PhotometricInterpretation MONOCHROME1, PixelPaddingValue/RangeLimit as
                     samples (stored + 32768 when signed), and for an image that was lossy
                     compressed the method (PS3.3 C.7.6.1.1.5: the file's
                     LossyImageCompressionMethod when it says "01" and gives one, else the
                     one of its transfer syntax); absent when lossless
A case whose tool is missing is left out, with the reason in [skipped].
"""
import base64, configparser, json, os, shutil, subprocess, sys, warnings
import numpy as np
import pydicom
from pydicom.encaps import generate_pixel_data_frame
from pydicom.pixel_data_handlers import gdcm_handler, numpy_handler, rle_handler
from pydicom.pixel_data_handlers.util import apply_color_lut, convert_color_space
from pydicom.uid import ExplicitVRLittleEndian

warnings.simplefilter('ignore')
OUT = sys.argv[1]
T = '/usr/lib/python3/dist-packages/pydicom/data/test_files/'
PAL = '/usr/lib/python3/dist-packages/pydicom/data/palettes/'
cases = configparser.ConfigParser(interpolation=None)
cases.optionxform = str
skipped = {}

def have(tool):
    return shutil.which(tool) is not None

def run(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

def to_json(ds):
    d = ds.copy()
    for kw in ('PixelData',):
        if kw in d:
            del d[kw]
    # binary values (palette tables) inline, as WADO-RS metadata may carry them
    return json.dumps([d.to_json_dict(bulk_data_threshold=1 << 30)])

def frame_bytes(ds, index=0):
    nframes = int(ds.get('NumberOfFrames', 1) or 1)
    if ds.file_meta.TransferSyntaxUID.is_compressed:
        for i, f in enumerate(generate_pixel_data_frame(ds.PixelData, nframes)):
            if i == index:
                return f
    size = ds.Rows * ds.Columns * ds.SamplesPerPixel * ds.BitsAllocated // 8
    if ds.PhotometricInterpretation in ('YBR_FULL_422', 'YBR_PARTIAL_422'):
        size = size * 2 // 3
    return ds.PixelData[index * size:(index + 1) * size]

def native_values(path, ds_ref, index=0):
    """Frame @index of an uncompressed file as little-endian stored samples (uint8/uint16)."""
    ds = pydicom.dcmread(path)
    raw = frame_bytes(ds, index)
    dt = {8: '<u1', 16: ('>u2' if not ds.is_little_endian else '<u2'), 32: '<u4'}[ds.BitsAllocated]
    a = np.frombuffer(raw, dtype=dt).astype(dt.replace('>', '<'))
    if ds.get('PlanarConfiguration', 0) == 1 and ds.SamplesPerPixel == 3:
        a = a.reshape(3, -1).T.reshape(-1)
    return a

# PS3.3 C.7.6.1.1.5.1: the Lossy Image Compression Method of the transfer syntaxes that may be
# lossy (JPEG 2000 counts as lossy unless it is the "Lossless Only" one)
LOSSY_METHOD = {'1.2.840.10008.1.2.4.50': 'ISO_10918_1', '1.2.840.10008.1.2.4.51': 'ISO_10918_1',
                '1.2.840.10008.1.2.4.81': 'ISO_14495_1', '1.2.840.10008.1.2.4.91': 'ISO_15444_1'}

def model_expectation(ds):
    """What the value model of a grey image from @ds must say (see the module's doc)."""
    g = {}
    signed = int(ds.get('PixelRepresentation', 0)) == 1
    g['signed'] = '1' if signed else '0'
    g['monochrome1'] = '1' if ds.PhotometricInterpretation == 'MONOCHROME1' else '0'
    if 'PixelPaddingValue' in ds:
        off = 32768 if signed else 0
        lo = int(ds.PixelPaddingValue)
        hi = int(ds.get('PixelPaddingRangeLimit', lo))
        g['padding'] = '%d %d' % (min(lo, hi) + off, max(lo, hi) + off)
    if ds.get('LossyImageCompression') == '01':
        m = ds.get('LossyImageCompressionMethod')
        g['lossy_method'] = '\\'.join(m) if isinstance(m, (list, pydicom.multival.MultiValue)) else (m or '')
        # absent (it is Type 1C with "01"): the method of the lossy syntax the file is stored in
        g['lossy_method'] = g['lossy_method'] or LOSSY_METHOD.get(str(ds.file_meta.TransferSyntaxUID), '')
    elif str(ds.file_meta.TransferSyntaxUID) in LOSSY_METHOD:
        g['lossy_method'] = LOSSY_METHOD[str(ds.file_meta.TransferSyntaxUID)]
    return g

def add(name, src_path, kind, expected, reference, frame=0, tolerance=0, ds_override=None,
        why_tolerance=None):
    ds = ds_override if ds_override is not None else pydicom.dcmread(src_path)
    with open(os.path.join(OUT, name + '.json'), 'w') as f:
        f.write(to_json(ds))
    with open(os.path.join(OUT, name + '.frame'), 'wb') as f:
        f.write(frame_bytes(ds, frame))
    exp = np.ascontiguousarray(expected)
    exp = exp.astype('<u1' if exp.dtype.itemsize == 1 else ('<u4' if exp.dtype.itemsize == 4 else '<u2'))
    with open(os.path.join(OUT, name + '.expected'), 'wb') as f:
        f.write(exp.tobytes())
    g = {'file': src_path, 'transfer_syntax': str(ds.file_meta.TransferSyntaxUID),
         'photometric': str(ds.PhotometricInterpretation), 'kind': kind,
         'reference': reference, 'tolerance': str(tolerance),
         'bits': str(exp.dtype.itemsize * 8), 'samples': str(exp.size)}
    if why_tolerance:
        g['why_tolerance'] = why_tolerance
    g['frame'] = str(frame)
    g.update(model_expectation(ds))
    cases[name] = g

def tmp(name):
    return os.path.join(OUT, name)

# --- references -------------------------------------------------------------------------------

DCMTK_DECODER = {'1.2.840.10008.1.2.4.50': 'dcmdjpeg', '1.2.840.10008.1.2.4.51': 'dcmdjpeg',
                 '1.2.840.10008.1.2.4.57': 'dcmdjpeg', '1.2.840.10008.1.2.4.70': 'dcmdjpeg',
                 '1.2.840.10008.1.2.4.80': 'dcmdjpls', '1.2.840.10008.1.2.4.81': 'dcmdjpls',
                 '1.2.840.10008.1.2.5': 'dcmdrle'}

def dcmtk_decoded(path, name, frame=0):
    """DCMTK's decoder, told not to convert colour (+cn: the samples as the stream holds them);
    None when DCMTK has no decoder for the syntax."""
    ts = str(pydicom.dcmread(path, stop_before_pixels=True).file_meta.TransferSyntaxUID)
    tool = DCMTK_DECODER.get(ts)
    if tool is None or not have(tool):
        return None
    out = tmp(name + '.dcmtk.dcm')
    args = [tool]
    if tool == 'dcmdjpeg':
        args.append('+cn')
    try:
        run(*args, path, out)
    except subprocess.CalledProcessError as e:
        print('%s: %s cannot read it: %s' % (path, tool, e.stderr.decode(errors='replace').strip().splitlines()[-1]))
        return None
    return native_values(out, None, frame)

def gdcm_decoded(path, frame=0):
    """GDCM (its OpenJPEG, CharLS and IJG builds) through pydicom's handler: raw samples."""
    if not gdcm_handler.is_available():
        return None
    ds = pydicom.dcmread(path)
    a = gdcm_handler.get_pixeldata(ds)
    bits = ds.BitsAllocated
    a = np.frombuffer(a.tobytes(), dtype={8: '<u1', 16: '<u2', 32: '<u4'}[bits])
    n = ds.Rows * ds.Columns * ds.SamplesPerPixel
    return a[frame * n:(frame + 1) * n]

def pydicom_rle_decoded(path, frame=0):
    """pydicom's own RLE decoder (numpy), which returns planes: made interleaved here."""
    ds = pydicom.dcmread(path)
    a = rle_handler.get_pixeldata(ds)
    a = np.frombuffer(a.tobytes(), dtype={8: '<u1', 16: '<u2', 32: '<u4'}[ds.BitsAllocated])
    n = ds.Rows * ds.Columns * ds.SamplesPerPixel
    a = a[frame * n:(frame + 1) * n]
    return a.reshape(ds.SamplesPerPixel, -1).T.reshape(-1)

def reference(path, name, frame=0):
    """The primary reference: DCMTK where it has the syntax, else GDCM. A second decoder (GDCM,
    or pydicom's own for RLE: GDCM 3.0.21 swaps the bytes of 16-bit RGB RLE) must agree where
    both decode (masked to BitsStored), or the script stops: the reference would be in doubt."""
    ds = pydicom.dcmread(path, stop_before_pixels=True)
    mask = (1 << ds.BitsStored) - 1
    d = dcmtk_decoded(path, name, frame)
    g = None
    try:
        if ds.file_meta.TransferSyntaxUID == '1.2.840.10008.1.2.5':
            g = pydicom_rle_decoded(path, frame)
        else:
            g = gdcm_decoded(path, frame)
    except Exception as e:
        print('%s: the second decoder cannot decode it (%s)' % (name, e))
    if d is not None and g is not None and not np.array_equal(d & mask, g & mask):
        diff = np.abs((d & mask).astype(np.int64) - (g & mask).astype(np.int64))
        print('%s: DCMTK and GDCM differ in %d samples (max %d)' % (name, (diff > 0).sum(), diff.max()))
        if ds.file_meta.TransferSyntaxUID not in ('1.2.840.10008.1.2.4.50', '1.2.840.10008.1.2.4.51'):
            sys.exit('%s: lossless decoders disagree' % name)
    if d is not None:
        return d, 'DCMTK' + (' (second decoder agrees)' if g is not None and np.array_equal(d & mask, g & mask) else '')
    if g is not None:
        return g, 'GDCM 3.0 via pydicom'
    return None, None

def decompress_case(name, path, frame=0, tolerance=0, why=None):
    exp, who = reference(path, name, frame)
    if exp is None:
        skipped[name] = 'no independent decoder (DCMTK or python3-gdcm) for ' + path
        return None
    add(name, path, 'decompress', exp, who, frame=frame, tolerance=tolerance, why_tolerance=why)
    return exp

def rgb_case(name, path, values, pi, frame=0, tolerance=0, why=None):
    """@values: the decoded samples (as the stream holds them); pydicom converts them."""
    ds = pydicom.dcmread(path, stop_before_pixels=True)
    if pi == 'PALETTE COLOR':
        idx = values.reshape(ds.Rows, ds.Columns)
        if ds.PixelRepresentation == 1:
            idx = idx.astype('<u%d' % (ds.BitsAllocated // 8)).view('<i%d' % (ds.BitsAllocated // 8))
        rgb = apply_color_lut(idx, pydicom.dcmread(path))
        ref = 'pydicom apply_color_lut'
    else:
        a = values.reshape(ds.Rows, ds.Columns, 3)
        rgb = convert_color_space(a.astype(np.uint8), pi, 'RGB')
        ref = 'pydicom convert_color_space'
    add(name, path, 'rgb', rgb, ref, frame=frame, tolerance=tolerance, why_tolerance=why)

# --- pydicom's compressed test files ----------------------------------------------------------

def T_(f):
    return T + f

for f in ('JPEG-lossy.dcm', 'JPGExtended.dcm', 'MR_small_jpeg_ls_lossless.dcm',
          'MR_small_jp2klossless.dcm', 'JPEG2000.dcm', '693_J2KI.dcm', 'MR_small_RLE.dcm',
          'SC_rgb_gdcm_KY.dcm', 'SC_rgb_jpeg_gdcm.dcm', 'SC_rgb_rle.dcm', 'SC_rgb_rle_16bit.dcm',
          'SC_rgb_jpeg.dcm', 'SC_rgb_jpeg_app14_dcmd.dcm', 'SC_rgb_jpeg_lossy_gdcm.dcm',
          'SC_jpeg_no_color_transform.dcm', 'SC_jpeg_no_color_transform_2.dcm',
          'SC_rgb_dcmtk_+eb+cr.dcm', 'rtdose_rle_1frame.dcm', 'J2K_pixelrep_mismatch.dcm',
          'GDCMJ2K_TextGBR.dcm'):
    if os.path.exists(T_(f)):
        decompress_case(f[:-4], T_(f))
    else:
        skipped[f[:-4]] = T_(f) + ' is not installed'
for f in ('SC_rgb_rle_2frame.dcm', 'SC_rgb_rle_16bit_2frame.dcm'):
    if os.path.exists(T_(f)):
        decompress_case(f[:-4] + '_frame2', T_(f), frame=1)

# YBR JPEGs: the stored YCbCr, then pydicom's conversion of it
for f in ('SC_rgb_jpeg_dcmtk.dcm', 'SC_rgb_dcmtk_+eb+cy+n1.dcm', 'SC_rgb_dcmtk_+eb+cy+n2.dcm',
          'SC_rgb_dcmtk_+eb+cy+np.dcm', 'SC_rgb_dcmtk_+eb+cy+s2.dcm', 'SC_rgb_dcmtk_+eb+cy+s4.dcm',
          'SC_rgb_small_odd_jpeg.dcm'):
    if not os.path.exists(T_(f)):
        skipped[f[:-4]] = T_(f) + ' is not installed'
        continue
    ybr = decompress_case(f[:-4], T_(f))
    if ybr is not None:
        rgb_case(f[:-4] + '_rgb', T_(f), ybr, 'YBR_FULL')

# uncompressed YBR_FULL_422: pydicom's numpy handler expands the chroma pairs
if os.path.exists(T_('SC_ybr_full_422_uncompressed.dcm')):
    ds = pydicom.dcmread(T_('SC_ybr_full_422_uncompressed.dcm'))
    full = numpy_handler.get_pixeldata(ds).reshape(-1)   # YBR_FULL after expansion
    rgb_case('SC_ybr_full_422_uncompressed', T_('SC_ybr_full_422_uncompressed.dcm'), full, 'YBR_FULL')

# --- files made here --------------------------------------------------------------------------

def make(name, tool, *args, src=None):
    out = tmp(name + '.src.dcm')
    if not have(tool):
        skipped[name] = tool + ' is not installed'
        return None
    try:
        run(tool, *args, src, out)
    except subprocess.CalledProcessError as e:
        skipped[name] = '%s refuses it: %s' % (tool, e.stderr.decode(errors='replace').strip())
        return None
    return out

for base in ('CT_small', 'MR_small'):
    src = T_(base + '.dcm')
    for name, tool, args in (
            ('jpeg_lossless_sv1', 'dcmcjpeg', ['+e1']),                 # .70
            ('jpeg_lossless_p14_sv6', 'dcmcjpeg', ['+el', '+sv', '6']),  # .57
            ('jpeg_lossless_p14_sv2_pt2', 'dcmcjpeg', ['+el', '+sv', '2', '+pt', '2']),
            ('jpegls_lossless', 'dcmcjpls', ['+el']),                    # .80
            ('jpegls_near3', 'dcmcjpls', ['+en', '+md', '3']),           # .81
            ('jpegls_none_ilv', 'dcmcjpls', ['+el', '+in']),
            ('rle', 'dcmcrle', []),                                      # .5
            ('j2k_lossless', 'gdcmconv', ['--j2k']),                     # .90
            ('j2k_lossy', 'gdcmconv', ['--j2k', '--lossy', '-r', '10']), # .91
            ('jpegls_gdcm', 'gdcmconv', ['--jpegls'])):
        made = make(base + '_' + name, tool, *args, src=src)
        if made:
            decompress_case(base + '_' + name, made)

# The value model through a codec: MONOCHROME1 with padding, signed, JPEG-LS lossless (the
# padding value is the image's minimum, so it occurs in the pixels)
mono1 = pydicom.dcmread(T_('CT_small.dcm'))
mono1.PhotometricInterpretation = 'MONOCHROME1'
mono1.PixelPaddingValue = int(mono1.pixel_array.min())
mono1['PixelPaddingValue'].VR = 'SS'
mono1.save_as(tmp('ct_mono1_padded.dcm'))
made = make('CT_mono1_padded_jpegls', 'dcmcjpls', '+el', src=tmp('ct_mono1_padded.dcm'))
if made:
    decompress_case('CT_mono1_padded_jpegls', made)
# a lossy JPEG 2000 file whose data set does not say it is lossy: the transfer syntax does
if cases.has_section('CT_small_j2k_lossy'):
    unflagged = pydicom.dcmread(tmp('CT_small_j2k_lossy.src.dcm'))
    for kw in ('LossyImageCompression', 'LossyImageCompressionRatio',
               'LossyImageCompressionMethod'):
        if kw in unflagged:
            del unflagged[kw]
    unflagged.save_as(tmp('CT_small_j2k_lossy_unflagged.src.dcm'))
    decompress_case('CT_small_j2k_lossy_unflagged', tmp('CT_small_j2k_lossy_unflagged.src.dcm'),
                    tolerance=int(cases['CT_small_j2k_lossy']['tolerance']))

# 12-bit unsigned CT for JPEG extended (process 4) and lossless at 12 bits (IJG's 12-bit build)
ct12 = pydicom.dcmread(T_('CT_small.dcm'))
a = ct12.pixel_array.astype(np.int32)
a_min = int(a.min())
a = np.clip(a - a_min, 0, 4095).astype('<u2')
ct12.PixelData = a.tobytes()
ct12.BitsStored, ct12.HighBit, ct12.PixelRepresentation = 12, 11, 0
ct12.PixelPaddingValue = 0   # CT_small's -2000 is below its pixels: the lowest value pads here
ct12['PixelPaddingValue'].VR = 'US'
ct12.RescaleIntercept = -1024
ct12.save_as(tmp('ct12.dcm'))
for name, tool, args in (('CT12_jpeg_extended', 'dcmcjpeg', ['+ee']),
                         ('CT12_jpeg_lossless_sv1', 'dcmcjpeg', ['+e1']),
                         ('CT12_jpegls_near2', 'dcmcjpls', ['+en'])):
    made = make(name, tool, *args, src=tmp('ct12.dcm'))
    if made:
        decompress_case(name, made)

# RGB through each family: a colour photo-like image made from the RLE sample
rgb = pydicom.dcmread(T_('SC_rgb.dcm')) if os.path.exists(T_('SC_rgb.dcm')) else None
if rgb is None:
    rgb = pydicom.dcmread(T_('SC_rgb_rle.dcm'))
    rgb.decompress(handler_name='rle') if hasattr(rgb, 'decompress') else None
rgb.save_as(tmp('rgb.dcm'))
for name, tool, args in (('RGB_jpeg_baseline_ybr422', 'dcmcjpeg', ['+eb', '+cy', '+s2']),
                         ('RGB_jpeg_baseline_rgb', 'dcmcjpeg', ['+eb', '+cr']),
                         ('RGB_jpeg_lossless', 'dcmcjpeg', ['+e1']),
                         ('RGB_jpegls_line', 'dcmcjpls', ['+el', '+il']),
                         ('RGB_jpegls_sample', 'dcmcjpls', ['+el', '+is']),
                         ('RGB_jpegls_none', 'dcmcjpls', ['+el', '+in']),
                         ('RGB_j2k_rct', 'gdcmconv', ['--j2k']),
                         ('RGB_j2k_ict', 'gdcmconv', ['--j2k', '--lossy', '-r', '10'])):
    made = make(name, tool, *args, src=tmp('rgb.dcm'))
    if made:
        pi = str(pydicom.dcmread(made, stop_before_pixels=True).PhotometricInterpretation)
        vals = decompress_case(name, made)
        if vals is not None and pi.startswith('YBR_FULL'):
            rgb_case(name + '_rgb', made, vals, 'YBR_FULL')

# uncompressed YBR_FULL, both planar configurations (pydicom converts the stored values)
ybr = pydicom.dcmread(tmp('rgb.dcm'))
arr = convert_color_space(ybr.pixel_array, 'RGB', 'YBR_FULL')
ybr.PhotometricInterpretation = 'YBR_FULL'
for planar in (0, 1):
    ybr.PlanarConfiguration = planar
    ybr.PixelData = (arr.transpose(2, 0, 1) if planar else arr).tobytes()
    ybr.save_as(tmp('ybr%d.dcm' % planar))
    rgb_case('YBR_FULL_native_planar%d' % planar, tmp('ybr%d.dcm' % planar), arr.reshape(-1), 'YBR_FULL')

# uncompressed YBR_PARTIAL_422: pydicom has no conversion for it, so the reference is the RGB
# image it was made from with the standard's forward equations (PS3.3 C.7.6.3.1.2), its
# columns doubled so that 4:2:2 subsampling loses nothing; the 4-digit coefficients and the
# rounding to 8 bits allow a difference of 1
src = pydicom.dcmread(tmp('rgb.dcm'))
rgb_px = np.repeat(src.pixel_array.astype(np.float64), 2, axis=1)
R, G, B = rgb_px[..., 0], rgb_px[..., 1], rgb_px[..., 2]
Y = np.clip(np.rint(.2568 * R + .5041 * G + .0979 * B + 16), 0, 255)
CB = np.clip(np.rint(-.1482 * R - .2910 * G + .4392 * B + 128), 0, 255)
CR = np.clip(np.rint(.4392 * R - .3678 * G - .0714 * B + 128), 0, 255)
packed = np.stack([Y[:, 0::2], Y[:, 1::2], CB[:, 0::2], CR[:, 0::2]], axis=-1).astype('u1')
partial = src.copy()
partial.Columns = src.Columns * 2
partial.PhotometricInterpretation = 'YBR_PARTIAL_422'
partial.PixelData = packed.tobytes()
partial.save_as(tmp('ybr_partial_422.dcm'))
add('YBR_PARTIAL_422_native', tmp('ybr_partial_422.dcm'), 'rgb', rgb_px.astype('u1'),
    'the RGB image, through the standard\'s forward equations', tolerance=1,
    why_tolerance='4-digit coefficients and 8-bit rounding of the forward equations')

# --- palette colour ---------------------------------------------------------------------------

def palette_image(name, palette_ds, bits, first=None, signed=False, lut16=None):
    ds = pydicom.dcmread(T_('CT_small.dcm'))
    rows, cols = 64, 80
    n = 1 << bits if lut16 is None else lut16[0]
    start = (first if first is not None else 0) - 8
    idx = (np.arange(rows * cols) % (n + 16) + start).astype(np.int64)   # under, in and over the table
    ds.Rows, ds.Columns = rows, cols
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'PALETTE COLOR'
    ds.BitsAllocated = 8 if bits <= 8 else 16
    ds.BitsStored, ds.HighBit = bits, bits - 1
    ds.PixelRepresentation = 1 if signed else 0
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    idx = np.clip(idx, lo, hi)
    dt = {8: ('<i1' if signed else '<u1'), 16: ('<i2' if signed else '<u2')}[ds.BitsAllocated]
    ds.PixelData = idx.astype(dt).tobytes()
    for kw in ('RescaleIntercept', 'RescaleSlope', 'WindowCenter', 'WindowWidth'):
        if kw in ds:
            del ds[kw]
    if lut16 is not None:
        entries, first_map = lut16
        x = np.arange(entries)
        tabs = [(x * 65535 // (entries - 1)), (65535 - x * 65535 // (entries - 1)), ((x * 7919) % 65536)]
        for c, t in zip(('Red', 'Green', 'Blue'), tabs):
            setattr(ds, c + 'PaletteColorLookupTableDescriptor', [entries, first_map, 16])
            ds[c + 'PaletteColorLookupTableDescriptor'].VR = 'SS' if signed else 'US'
            setattr(ds, c + 'PaletteColorLookupTableData', t.astype('<u2').tobytes())
            ds[c + 'PaletteColorLookupTableData'].VR = 'OW'
    else:
        for el in palette_ds:
            if el.tag.group == 0x0028 and 0x1100 <= el.tag.element <= 0x1223:
                ds.add(el)
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.is_little_endian, ds.is_implicit_VR = True, False
    path = tmp(name + '.dcm')
    ds.save_as(path)
    return path, idx

for name, pal in (('PALETTE_hotiron_8bit', 'hotiron.dcm'), ('PALETTE_fall_segmented', 'fall.dcm'),
                  ('PALETTE_spring_segmented', 'spring.dcm'), ('PALETTE_pet20step', 'pet20step.dcm')):
    if not os.path.exists(PAL + pal):
        skipped[name] = PAL + pal + ' is not installed'
        continue
    path, idx = palette_image(name, pydicom.dcmread(PAL + pal), 8)
    rgb_case(name, path, idx, 'PALETTE COLOR')
path, idx = palette_image('PALETTE_16bit_lut', None, 12, first=100, lut16=(3000, 100))
rgb_case('PALETTE_16bit_lut', path, idx, 'PALETTE COLOR')
path, idx = palette_image('PALETTE_signed_index', None, 12, first=-500, signed=True, lut16=(1000, -500))
rgb_case('PALETTE_signed_index', path, idx, 'PALETTE COLOR')
# the same palette image RLE-compressed: the colour step after the decoder
made = make('PALETTE_fall_rle', 'dcmcrle', src=tmp('PALETTE_fall_segmented.dcm'))
if made:
    vals = decompress_case('PALETTE_fall_rle', made)
    if vals is not None:
        rgb_case('PALETTE_fall_rle_rgb', made, vals, 'PALETTE COLOR')

cases['skipped'] = skipped if skipped else {'none': ''}
with open(os.path.join(OUT, 'cases.ini'), 'w') as f:
    cases.write(f)
print('%d cases, %d skipped' % (len(cases.sections()) - 1, len(skipped)))
