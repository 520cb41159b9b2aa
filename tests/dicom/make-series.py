#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-series.py OUTDIR N [SIZE] — a CT series of N slices of SIZE×SIZE (default 512), one file
each, as a scanner writes them: one patient, one study, one series, InstanceNumber 1…N, file
names by SOPInstanceUID without extension. Prints the series' identity as a key file on stdout
(what the listing must show). Exit status 77 without pydicom/numpy."""
import sys

try:
    import numpy as np
    import pydicom
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print('make-series.py: %s' % e, file=sys.stderr)
    sys.exit(77)

out, n = sys.argv[1], int(sys.argv[2])
size = int(sys.argv[3]) if len(sys.argv) > 3 else 512
study, series = generate_uid(), generate_uid()
rng = np.random.default_rng(25)
for i in range(n):
    sop = generate_uid()
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    meta.MediaStorageSOPInstanceUID = sop
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.SpecificCharacterSet = 'ISO_IR 100'
    ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, sop
    ds.StudyDate, ds.StudyTime, ds.Modality = '20240131', '101500', 'CT'
    ds.StudyDescription, ds.SeriesDescription = 'Thorax', 'Lung 1.0'
    ds.PatientName, ds.PatientID = 'Müller^Anna', 'P-0042'
    ds.StudyInstanceUID, ds.SeriesInstanceUID = study, series
    ds.SeriesNumber, ds.InstanceNumber = 3, i + 1
    ds.ImagePositionPatient = [0, 0, -float(i)]
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
    ds.Rows = ds.Columns = size
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 12, 11, 0
    ds.RescaleIntercept, ds.RescaleSlope = -1024, 1
    ds.PixelData = rng.integers(0, 4096, (size, size), dtype=np.uint16).tobytes()
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.save_as('%s/%s' % (out, sop), write_like_original=False)
print('[series]\npatient_id=P-0042\npatient_name=Müller^Anna\nstudy=%s\nseries=%s\ncount=%d'
      % (study, series, n))
