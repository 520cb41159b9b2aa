#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""pixel-reference.py OUTDIR FILE…  — each file's frames and pixel values by pydicom + numpy.

For FILE, writes OUTDIR/NAME.ini with the Image Pixel module as pydicom reads it, and:
  NAME.frames  encapsulated syntaxes: each frame's fragments concatenated, frame after frame
               (pydicom.encaps.generate_pixel_data_frame); the lengths are in the .ini
  NAME.raw     pydicom's pixel_array of every frame, frame after frame, samples interleaved, as
               stored (bits above BitsStored kept: pydicom 2.3 does not mask native data), in
               little-endian unsigned words of BitsAllocated (1-bit: a byte per pixel)
  NAME.values  the stored values by PS3.5 §8.1.1, computed here with numpy: shifted down by
               HighBit + 1 − BitsStored, masked to BitsStored bits, sign-extended when
               PixelRepresentation is 1; little-endian int64
'error' in the .ini: pydicom finds no frames (no pixel data, a truncated or inconsistent file);
'decode_error': it finds the frames but cannot decode them. Exit status 77 without pydicom or
numpy."""
import configparser, os, sys, warnings

try:
    import numpy as np
    import pydicom
    from pydicom.encaps import generate_pixel_data_frame
except ImportError as e:
    print('pixel-reference.py: %s' % e)
    sys.exit(77)

warnings.simplefilter('ignore')


def reference(path, name, out):
    g = {}
    try:
        ds = pydicom.dcmread(path, force=True)  # force: files without meta information
        rows, cols = int(ds.Rows), int(ds.Columns)
        alloc = int(ds.BitsAllocated)
        frames = int(ds.get('NumberOfFrames', 1) or 1)
        data = ds.PixelData
    except Exception as e:
        return {'error': str(e) or type(e).__name__}
    spp = int(ds.get('SamplesPerPixel', 1))
    stored = int(ds.get('BitsStored', alloc))
    high = int(ds.get('HighBit', stored - 1))
    pixrep = int(ds.get('PixelRepresentation', 0))
    ts = getattr(ds, 'file_meta', {}).get('TransferSyntaxUID')
    g.update(rows=rows, columns=cols, samples=spp, frames=frames, bits_allocated=alloc,
             bits_stored=stored, high_bit=high, pixel_representation=pixrep,
             photometric=str(ds.get('PhotometricInterpretation', '')),
             planar=int(ds.get('PlanarConfiguration', 0) or 0))
    if ts is not None and ts.is_compressed:
        try:
            parts = list(generate_pixel_data_frame(data, frames))
        except Exception as e:
            return {'error': 'fragments: %s' % e}
        with open(os.path.join(out, name + '.frames'), 'wb') as f:
            for p in parts:
                f.write(p)
        g['encapsulated'] = 1
        g['frame_lengths'] = ','.join(str(len(p)) for p in parts)
    try:
        arr = ds.pixel_array
    except Exception as e:
        g['decode_error'] = str(e) or type(e).__name__
        return g
    arr = arr.reshape(frames, rows, cols, -1)
    width = {1: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[alloc]
    raw = arr.view(arr.dtype.str.replace('i', 'u')).astype(width)
    raw.astype(np.dtype(width).newbyteorder('<')).tofile(os.path.join(out, name + '.raw'))
    shift = high + 1 - stored
    mask = (1 << stored) - 1
    v = ((raw.astype(np.uint64) >> np.uint64(shift)) & np.uint64(mask)).astype(np.int64)
    if pixrep == 1:
        v = np.where(v & (1 << (stored - 1)), v - (1 << stored), v)
    v.astype('<i8').tofile(os.path.join(out, name + '.values'))
    g['decoded_samples'] = arr.shape[3]
    return g


out = sys.argv[1]
for path in sys.argv[2:]:
    name = os.path.splitext(os.path.basename(path))[0]
    ini = configparser.ConfigParser(interpolation=None)
    ini['pixels'] = {k: str(v) for k, v in reference(path, name, out).items()}
    with open(os.path.join(out, name + '.ini'), 'w') as f:
        ini.write(f)
