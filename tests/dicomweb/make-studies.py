#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-studies.py OUTDIR — several small studies for the study search and the study panel:
different patients (two studies share one), dates, modalities and accession numbers, each
study with one to three series of known descriptions, numbers and instance counts. One Part 10
file per slice in OUTDIR/<study key>/ (all series of a study in one folder, as a local store
lists them), unsigned 16-bit (8-bit for US) so that the stored values are the pixels.

Prints a manifest as JSON on stdout: per study its attributes and StudyInstanceUID, per series
its attributes, SeriesInstanceUID, instance count, and the files in InstanceNumber order (which
is also the order along the slice normal), with the first slice's pixels as hex of the
little-endian samples pydicom reads back. Exit status 77 without pydicom/numpy."""
import json
import os
import sys

try:
    import numpy as np
    import pydicom
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print('make-studies.py: %s' % e, file=sys.stderr)
    sys.exit(77)

SOP_CLASS = {'CT': '1.2.840.10008.5.1.4.1.1.2', 'MR': '1.2.840.10008.5.1.4.1.1.4',
             'CR': '1.2.840.10008.5.1.4.1.1.1', 'US': '1.2.840.10008.5.1.4.1.1.6.1'}
# key, name, ID, date, accession, description, [(modality, number, description, slices)]
STUDIES = [
    ('s1', 'Alpha^Anna', 'ST-001', '20230115', 'ACC-S1', 'Head CT',
     [('CT', 1, 'Axial 5mm', 5), ('CT', 2, 'Bone 1mm', 7)]),
    ('s2', 'Alpha^Bert', 'ST-002', '20230620', 'ACC-S2', 'Knee MR',
     [('MR', 1, 'T1 sag', 4), ('MR', 2, 'T2 cor', 3), ('MR', 3, 'PD ax', 2)]),
    ('s3', 'Beta^Clara', 'ST-003', '20240310', 'ACC-S3', 'Chest',
     [('CT', 1, 'Lung', 3), ('CR', 2, 'PA view', 1)]),
    ('s4', 'Alpha^Anna', 'ST-001', '20240802', 'ACC-S4', 'Follow-up CT',
     [('CT', 1, 'Axial', 3)]),
    ('s5', 'Delta^Emil', 'ST-005', '20221201', 'ACC-S5', 'Abdomen US',
     [('US', 1, 'Liver', 2)]),
]
SIZE = 32


def pixels(study_i, number, k, bits):
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    # a ramp (so the thumbnail is not flat) plus what says which study, series and slice
    a = x * 8 + y * 2 + 1000 * study_i + 100 * number + 10 * k
    return a.astype(np.uint16) if bits == 16 else (a % 256).astype(np.uint8)


def write(out, si, st, series, study_uid, frame_uid):
    key, name, pid, date, acc, desc, _ = st
    modality, number, sdesc, n = series
    series_uid = generate_uid()
    bits = 8 if modality == 'US' else 16
    files = []
    for k in range(n):
        sop = generate_uid()
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = SOP_CLASS[modality], sop
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
        ds.SpecificCharacterSet = 'ISO_IR 100'
        ds.SOPClassUID, ds.SOPInstanceUID = SOP_CLASS[modality], sop
        ds.PatientName, ds.PatientID = name, pid
        ds.StudyDate, ds.StudyTime, ds.AccessionNumber = date, '101500', acc
        ds.StudyDescription, ds.StudyID = desc, key
        ds.Modality, ds.SeriesNumber, ds.SeriesDescription = modality, number, sdesc
        ds.StudyInstanceUID, ds.SeriesInstanceUID = study_uid, series_uid
        ds.FrameOfReferenceUID = frame_uid
        ds.InstanceNumber = k + 1
        ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
        ds.ImagePositionPatient = [0.0, 0.0, 2.5 * k]
        ds.PixelSpacing = [0.5, 0.5]
        ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
        ds.Rows = ds.Columns = SIZE
        ds.BitsAllocated = ds.BitsStored = bits
        ds.HighBit, ds.PixelRepresentation = bits - 1, 0
        if bits == 16:
            ds.WindowCenter, ds.WindowWidth = 1000 * si + 300, 800
        ds.PixelData = pixels(si, number, k, bits).tobytes()
        ds.is_little_endian, ds.is_implicit_VR = True, False
        path = os.path.join(out, key, '%s-%d-%02d.dcm' % (modality, number, k + 1))
        ds.save_as(path, write_like_original=False)
        files.append(path)
    # the reference: what pydicom reads back from the first file
    first = pydicom.dcmread(files[0]).pixel_array
    return {'uid': series_uid, 'modality': modality, 'number': number, 'description': sdesc,
            'count': n, 'files': files,
            'first_pixels': first.astype('<u2' if bits == 16 else 'u1').tobytes().hex(),
            'bits': bits, 'size': SIZE}


def main():
    out = sys.argv[1]
    manifest = []
    for si, st in enumerate(STUDIES, 1):
        key, name, pid, date, acc, desc, series = st
        os.makedirs(os.path.join(out, key), exist_ok=True)
        study_uid, frame_uid = generate_uid(), generate_uid()
        ss = [write(out, si, st, s, study_uid, frame_uid) for s in series]
        manifest.append({'key': key, 'uid': study_uid, 'patient_name': name, 'patient_id': pid,
                         'date': date, 'accession': acc, 'description': desc,
                         'dir': os.path.join(out, key),
                         'modalities': sorted({s['modality'] for s in ss}), 'series': ss})
    json.dump(manifest, sys.stdout, indent=1)


main()
