#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""dicom-make-series.py DIR N [SIZE [SYNTAXES]] — the files `lightbox-bench dicom` decodes,
and the series ui-timing pages through and loads.

A synthetic CT series of N slices, SIZExSIZE (default 512), 12 bits stored in 16 (unsigned, intercept -1024,
as many scanners write it): a body outline, organs, bone and noise that change from slice to
slice. Uncompressed with pydicom, then encoded with DCMTK (dcmcjpeg, dcmcjpls, dcmcrle) and
GDCM (gdcmconv, for JPEG 2000), one file per slice as a scanner would send them. JPEG
baseline is 8-bit only: its series is the same slices windowed to 8 bits.

DIR/<syntax-uid>/ gets sNNN.dcm (the encoded file), sNNN.frame (its first frame's fragments
concatenated, read back with pydicom) and ds.json (the data set without Pixel Data, in the
DICOM JSON model). DIR/manifest.ini lists the syntaxes made, with the command-line decoder
DCMTK or GDCM offers for each, and the ones that could not be made. SYNTAXES (comma-separated
UIDs) makes only those. The slices are axial, 1.25 mm apart (ImagePositionPatient,
ImageOrientationPatient, PixelSpacing), so that a viewer orders them along the normal."""
import configparser, json, os, shutil, subprocess, sys
import numpy as np
import pydicom
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.encaps import generate_pixel_data_frame
from pydicom.uid import ExplicitVRLittleEndian, generate_uid

OUT, N = sys.argv[1], int(sys.argv[2])
SIZE = int(sys.argv[3]) if len(sys.argv) > 3 else 512
ONLY = sys.argv[4].split(',') if len(sys.argv) > 4 else None
SYNTAXES = [  # uid, encoder, decoder (as a user would run it: IN OUT appended)
    ('1.2.840.10008.1.2.4.50', ['dcmcjpeg', '+eb'], ['dcmdjpeg'], 8),
    ('1.2.840.10008.1.2.4.51', ['dcmcjpeg', '+ee'], ['dcmdjpeg'], 12),
    ('1.2.840.10008.1.2.4.57', ['dcmcjpeg', '+el', '+sv', '6'], ['dcmdjpeg'], 12),
    ('1.2.840.10008.1.2.4.70', ['dcmcjpeg', '+e1'], ['dcmdjpeg'], 12),
    ('1.2.840.10008.1.2.4.80', ['dcmcjpls', '+el'], ['dcmdjpls'], 12),
    ('1.2.840.10008.1.2.4.81', ['dcmcjpls', '+en'], ['dcmdjpls'], 12),
    ('1.2.840.10008.1.2.4.90', ['gdcmconv', '--j2k'], ['gdcmconv', '--raw'], 12),
    ('1.2.840.10008.1.2.4.91', ['gdcmconv', '--j2k', '--lossy', '-r', '10'], ['gdcmconv', '--raw'], 12),
    ('1.2.840.10008.1.2.5', ['dcmcrle'], ['dcmdrle'], 12),
    ('1.2.840.10008.1.2.1', None, None, 12),
]

rng = np.random.default_rng(25)
# the phantom is drawn on a 512-pixel grid whatever SIZE is
y, x = (np.mgrid[0:SIZE, 0:SIZE].astype(np.float32) * (512.0 / SIZE))
study, series = generate_uid(), generate_uid()

def slice_hu(k):
    """Hounsfield units of slice k: air, a body ellipse of soft tissue, organs, spine, noise."""
    z = k / max(N - 1, 1)
    hu = np.full((SIZE, SIZE), -1000.0, np.float32)
    body = ((x - 256) / (200 - 20 * z)) ** 2 + ((y - 270) / (150 - 10 * z)) ** 2 < 1
    hu[body] = 40
    lungs = (((x - 180) / 60) ** 2 + ((y - 240) / (80 * (1 - 0.5 * z))) ** 2 < 1) | \
            (((x - 332) / 60) ** 2 + ((y - 240) / (80 * (1 - 0.5 * z))) ** 2 < 1)
    hu[lungs & body] = -850
    spine = ((x - 256) / 25) ** 2 + ((y - 370) / 25) ** 2 < 1
    hu[spine] = 700 + 300 * np.cos(x / 7)[spine]
    hu += rng.normal(0, 12, hu.shape).astype(np.float32)
    return np.clip(hu, -1024, 3071)

def dataset(k, bits):
    ds = Dataset()
    ds.file_meta = FileMetaDataset()
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.file_meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    ds.file_meta.MediaStorageSOPInstanceUID = generate_uid()
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.SOPClassUID = ds.file_meta.MediaStorageSOPClassUID
    ds.SOPInstanceUID = ds.file_meta.MediaStorageSOPInstanceUID
    ds.StudyInstanceUID, ds.SeriesInstanceUID = study, series
    ds.Modality, ds.PatientName, ds.PatientID = 'CT', 'Bench^Phantom', 'BENCH'
    ds.InstanceNumber = k + 1
    ds.Rows = ds.Columns = SIZE
    spacing = 350.0 / SIZE
    ds.PixelSpacing = [spacing, spacing]
    ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    ds.ImagePositionPatient = [-175.0, -175.0, -1.25 * k]
    ds.SliceThickness = 1.25
    ds.SeriesNumber = 1
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
    ds.PixelRepresentation = 0
    hu = slice_hu(k)
    if bits == 8:
        ds.BitsAllocated, ds.BitsStored, ds.HighBit = 8, 8, 7
        ds.PixelData = np.clip((hu + 160) * 255 / 400, 0, 255).astype('u1').tobytes()
    else:
        ds.BitsAllocated, ds.BitsStored, ds.HighBit = 16, 12, 11
        ds.RescaleIntercept, ds.RescaleSlope, ds.RescaleType = -1024, 1, 'HU'
        ds.PixelData = (hu + 1024).astype('<u2').tobytes()
    return ds

manifest = configparser.ConfigParser(interpolation=None)
manifest.optionxform = str
src = {8: os.path.join(OUT, 'src8'), 12: os.path.join(OUT, 'src12')}
for bits, d in src.items():
    os.makedirs(d, exist_ok=True)
    for k in range(N):
        dataset(k, bits).save_as(os.path.join(d, 's%03d.dcm' % k), write_like_original=False)
for uid, enc, dec, bits in SYNTAXES:
    if ONLY is not None and uid not in ONLY:
        continue
    d = os.path.join(OUT, uid)
    os.makedirs(d, exist_ok=True)
    tools = [t[0] for t in (enc, dec) if t]
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        manifest['skipped ' + uid] = {'why': ', '.join(missing) + ' not installed'}
        continue
    for k in range(N):
        name = os.path.join(d, 's%03d' % k)
        if enc:
            subprocess.run(enc + [os.path.join(src[bits], 's%03d.dcm' % k), name + '.dcm'],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            shutil.copy(os.path.join(src[bits], 's%03d.dcm' % k), name + '.dcm')
        ds = pydicom.dcmread(name + '.dcm')
        frame = next(generate_pixel_data_frame(ds.PixelData, 1)) if enc else ds.PixelData
        with open(name + '.frame', 'wb') as f:
            f.write(frame)
        if k == 0:
            del ds.PixelData
            with open(os.path.join(d, 'ds.json'), 'w') as f:
                json.dump([ds.to_json_dict()], f)
    manifest[uid] = {'dir': d, 'decoder': ' '.join(dec) if dec else '',
                     'bits_stored': str(bits), 'files': str(N)}
for d in src.values():
    shutil.rmtree(d)
with open(os.path.join(OUT, 'manifest.ini'), 'w') as f:
    manifest.write(f)
