#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tags-reference.py OUTDIR — one CT slice for the tag browser on remote stores, written by
pydicom to OUTDIR/ct.dcm: a patient, a series description, an instance number, a rescale to
Hounsfield units with a window, and a sequence (ProcedureCodeSequence, one item).

Prints as JSON what pydicom reads back from the file: the values the tag browser must list,
the UIDs that address the instance on a DICOMweb server, and the patient's name and series as
a reader calls them ("Family, Given"). Exit status 77 without pydicom/numpy."""
import json
import os
import sys

try:
    import numpy as np
    import pydicom
    from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print('tags-reference.py: %s' % e, file=sys.stderr)
    sys.exit(77)

CT = '1.2.840.10008.5.1.4.1.1.2'
path = os.path.join(sys.argv[1], 'ct.dcm')
sop = generate_uid()
meta = FileMetaDataset()
meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = CT, sop
meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
ds.SpecificCharacterSet = 'ISO_IR 100'
ds.SOPClassUID, ds.SOPInstanceUID = CT, sop
ds.PatientName, ds.PatientID = 'Gamma^Frieda', 'TB-017'
ds.StudyDate, ds.StudyTime, ds.AccessionNumber = '20240411', '083000', 'ACC-TB'
ds.StudyDescription, ds.StudyID = 'Head CT', 'tb'
code = Dataset()
code.CodeValue, code.CodingSchemeDesignator = 'ZZ0042', '99LB'
code.CodeMeaning = 'CT head without contrast'
ds.ProcedureCodeSequence = [code]
ds.Modality, ds.SeriesNumber, ds.SeriesDescription = 'CT', 4, 'Axial 5mm'
ds.StudyInstanceUID, ds.SeriesInstanceUID = generate_uid(), generate_uid()
ds.FrameOfReferenceUID = generate_uid()
ds.InstanceNumber = 7
ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
ds.ImagePositionPatient = [-60.0, -40.0, 12.5]
ds.PixelSpacing = [0.75, 0.75]
ds.SliceThickness = 5
ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
ds.Rows, ds.Columns = 40, 56
ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 12, 11, 0
ds.RescaleIntercept, ds.RescaleSlope = -1024, 1
ds.WindowCenter, ds.WindowWidth = 40, 400
y, x = np.mgrid[0:ds.Rows, 0:ds.Columns]
ds.PixelData = (1024 + x * 20 + y * 5).astype('<u2').tobytes()
ds.save_as(path, write_like_original=False)

back = pydicom.dcmread(path)
pn = back.PatientName
item = back.ProcedureCodeSequence[0]
json.dump({
    'file': path,
    'PatientName': str(pn),
    'Rows': str(back.Rows),
    'Columns': str(back.Columns),
    'CodeValue': item.CodeValue,
    'CodeMeaning': item.CodeMeaning,
    'n_items': len(back.ProcedureCodeSequence),
    'study': back.StudyInstanceUID,
    'series': back.SeriesInstanceUID,
    'instance': back.SOPInstanceUID,
    'reader_name': '%s, %s' % (pn.family_name, pn.given_name),
    'series_description': back.SeriesDescription,
    'instance_number': str(back.InstanceNumber),
    'window': 'W %d L %d' % (int(back.WindowWidth), int(back.WindowCenter)),
}, sys.stdout, indent=1)
