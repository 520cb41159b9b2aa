#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-codec-seeds.py DIR — seeds for fuzz-dicom-codec: one real frame of each transfer
syntax at each pixel description the harness uses (16x16 grey 12-in-16 bits, 16x16 8-bit
colour, 16x16 8-bit palette), made with pydicom, DCMTK (dcmcjpeg, dcmcjpls, dcmcrle) and
gdcmconv. The first byte of each seed selects the syntax and description (see the harness)."""
import os, shutil, subprocess, sys, tempfile
import numpy as np
import pydicom
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.encaps import generate_pixel_data_frame
from pydicom.uid import ExplicitVRLittleEndian, generate_uid

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
SYNTAXES = ['1.2.840.10008.1.2.4.50', '1.2.840.10008.1.2.4.51', '1.2.840.10008.1.2.4.57',
            '1.2.840.10008.1.2.4.70', '1.2.840.10008.1.2.4.80', '1.2.840.10008.1.2.4.81',
            '1.2.840.10008.1.2.4.90', '1.2.840.10008.1.2.4.91', '1.2.840.10008.1.2.5',
            '1.2.840.10008.1.2.1', '1.2.840.10008.1.2.2']
ENCODERS = {  # syntax index -> command
    0: ['dcmcjpeg', '+eb'], 1: ['dcmcjpeg', '+ee'], 2: ['dcmcjpeg', '+el', '+sv', '3'],
    3: ['dcmcjpeg', '+e1'], 4: ['dcmcjpls', '+el'], 5: ['dcmcjpls', '+en'],
    6: ['gdcmconv', '--j2k'], 7: ['gdcmconv', '--j2k', '--lossy', '-r', '10'], 8: ['dcmcrle'],
}

def image(variant):
    ds = Dataset()
    ds.file_meta = FileMetaDataset()
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.file_meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.7'
    ds.file_meta.MediaStorageSOPInstanceUID = generate_uid()
    ds.SOPClassUID, ds.SOPInstanceUID = ds.file_meta.MediaStorageSOPClassUID, ds.file_meta.MediaStorageSOPInstanceUID
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.Rows = ds.Columns = 16
    y, x = np.mgrid[0:16, 0:16]
    if variant == 0:
        ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
        ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 12, 11, 0
        ds.PixelData = ((x * 250 + y * 7) % 4096).astype('<u2').tobytes()
    elif variant in (1, 2):
        ds.SamplesPerPixel, ds.PhotometricInterpretation = 3, 'RGB'
        ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 8, 8, 7, 0
        ds.PlanarConfiguration = 0
        ds.PixelData = np.stack([x * 16, y * 16, (x + y) * 8], axis=-1).astype('u1').tobytes()
    else:
        ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'PALETTE COLOR'
        ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 8, 8, 7, 0
        ds.PixelData = ((x * 16 + y) % 256).astype('u1').tobytes()
    return ds

def lut_prefix(kind):
    if kind == 'segmented':   # fall.dcm's red channel: discrete 255, then a ramp held at 255
        t = bytes([0, 1, 255, 1, 255, 255, 2, 1, 0, 0, 0, 0])
        return bytes([0x80 | (len(t) >> 8), len(t) & 0xff]) + t
    if kind == 'lut8':
        t = bytes(range(256))
        return bytes([0x40 | (len(t) >> 8), len(t) & 0xff]) + t
    t = np.arange(256, dtype='<u2').tobytes()
    return bytes([len(t) >> 8, len(t) & 0xff]) + t

tmp = tempfile.mkdtemp()
n = 0
for variant in range(4):
    src = os.path.join(tmp, 'v%d.dcm' % variant)
    image(variant).save_as(src, write_like_original=False)
    for si, ts in enumerate(SYNTAXES):
        if si in ENCODERS:
            tool = ENCODERS[si]
            if shutil.which(tool[0]) is None:
                continue
            out = os.path.join(tmp, 'v%d_%d.dcm' % (variant, si))
            r = subprocess.run(tool + [src, out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode != 0:
                continue
            ds = pydicom.dcmread(out)
            frame = next(generate_pixel_data_frame(ds.PixelData, 1))
        else:
            ds = pydicom.dcmread(src)
            frame = ds.PixelData
            if si == 10:   # big endian: swap the 16-bit samples
                frame = np.frombuffer(frame, '<u2' if ds.BitsAllocated == 16 else 'u1').astype(
                    '>u2' if ds.BitsAllocated == 16 else 'u1').tobytes()
        for kind in (['data'] if variant != 3 else ['lut16', 'lut8', 'segmented']):
            prefix = bytes([variant << 4 | si]) + (lut_prefix(kind) if variant == 3 else b'')
            with open(os.path.join(OUT, 'v%d-%02d-%s.bin' % (variant, si, kind)), 'wb') as f:
                f.write(prefix + frame)
            n += 1
shutil.rmtree(tmp)
print('%d seeds in %s' % (n, OUT))
