#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-phantom.py OUTDIR [options] — a digital CT phantom for the reading tests: one patient,
one study, one series per orientation (OUTDIR/axial, OUTDIR/sagittal, OUTDIR/coronal,
OUTDIR/oblique), one Part 10 file per slice, with the geometry a scanner writes
(ImagePositionPatient, ImageOrientationPatient, PixelSpacing, SliceThickness, SliceLocation,
one FrameOfReferenceUID) and known values:

  - background: stored 0 (−1024 HU);
  - a square of side SIZE/4 around the centre: stored 2000 + k, k the slice's index along the
    slice normal (0 at the lowest location), so every slice says which one it is;
  - a 4×4 marker at the first row and column (the image's top left): stored 3000, so that a
    flip or a rotation shows.

Options:
  --slices N        slices per series (default 12)
  --size S          rows = columns = S (default 64)
  --spacing MM      slice spacing and thickness (default 2.5)
  --orientations L  comma-separated subset of axial,sagittal,coronal,oblique (default the
                    first three)
  --shuffle SEED    files named by random tokens and written in a random order, so that
                    neither names nor directory order give the slice order
  --centre X,Y,Z    every series centred on this patient point (mm): its middle slice's centre
                    pixel there, so that the orientations cut through one another (reference
                    lines); without it each series starts at (−25, −30, 100)
  --frame-of-reference UID
                    the FrameOfReferenceUID (and a StudyInstanceUID derived from it), so that
                    the series of two runs share the patient's coordinate system
  --multiframe      also OUTDIR/multiframe.dcm: the axial slices as one multi-frame object
                    whose frames are stored in reverse order, each with its Plane Position in
                    the Per-frame Functional Groups

Prints a manifest as JSON on stdout: the patient/study attributes, and per series its
directory, ImageOrientationPatient, slice normal (row × column), and per file its name, its
index k, ImagePositionPatient, location (IPP · normal, mm) and centre value. Exit status 77
without pydicom/numpy."""
import argparse
import json
import os
import sys

try:
    import numpy as np
    from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
    from pydicom.sequence import Sequence
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print('make-phantom.py: %s' % e, file=sys.stderr)
    sys.exit(77)

CT_IMAGE = '1.2.840.10008.5.1.4.1.1.2'
ENHANCED_CT_IMAGE = '1.2.840.10008.5.1.4.1.1.2.1'

PATIENT = {
    'PatientName': 'Phantom^Reading^Q',
    'PatientID': 'PH-26',
    'PatientSex': 'O',
    'PatientAge': '042Y',
    'PatientBirthDate': '19820315',
}
STUDY = {
    'StudyDate': '20240229',
    'StudyTime': '093000',
    'StudyDescription': 'Phantom abdomen',
    'AccessionNumber': 'ACC-2601',
    'StudyID': '26',
}


def oblique_iop():
    """Axial rotated 20° about x, then 15° about z: no axis dominates weakly."""
    a, b = np.radians(20), np.radians(15)
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    rz = np.array([[np.cos(b), -np.sin(b), 0], [np.sin(b), np.cos(b), 0], [0, 0, 1]])
    r = rz @ rx
    return list(r @ [1, 0, 0]) + list(r @ [0, 1, 0])


# ImageOrientationPatient (row cosines, then column cosines) per orientation, as scanners
# write them (PS3.3 C.7.6.2.1.1: x towards the patient's left, y posterior, z head).
ORIENTATIONS = {
    'axial': [1, 0, 0, 0, 1, 0],
    'sagittal': [0, 1, 0, 0, 0, -1],
    'coronal': [1, 0, 0, 0, 0, -1],
    'oblique': oblique_iop(),
}
SERIES_NUMBER = {'axial': 1, 'sagittal': 2, 'coronal': 3, 'oblique': 4}


def ds_text(v):
    return [float('%.10g' % x) for x in v]


def pixels(k, size):
    a = np.zeros((size, size), dtype=np.int16)
    q = size // 8
    a[size // 2 - q:size // 2 + q, size // 2 - q:size // 2 + q] = 2000 + k
    a[0:4, 0:4] = 3000
    return a


def base_dataset(meta, args, study_uid, frame_uid, series_uid, name):
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.SpecificCharacterSet = 'ISO_IR 100'
    ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID
    for k, v in list(PATIENT.items()) + list(STUDY.items()):
        setattr(ds, k, v)
    ds.Modality = 'CT'
    ds.StudyInstanceUID, ds.SeriesInstanceUID = study_uid, series_uid
    ds.FrameOfReferenceUID = frame_uid
    ds.SeriesNumber = SERIES_NUMBER.get(name, 9)
    ds.SeriesDescription = 'Phantom %s %.1f mm' % (name, args.spacing)
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
    ds.Rows = ds.Columns = args.size
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 1
    ds.RescaleIntercept, ds.RescaleSlope, ds.RescaleType = -1024, 1, 'HU'
    ds.WindowCenter, ds.WindowWidth = 40, 400
    # row spacing \ column spacing (PS3.3 10.7.1.3), different so that a swap shows
    ds.PixelSpacing = [0.8, 0.7]
    ds.SliceThickness = args.spacing
    return ds


def write(ds, path):
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.save_as(path, write_like_original=False)


def make_series(args, name, study_uid, frame_uid, rng):
    iop = ORIENTATIONS[name]
    row, col = np.array(iop[:3]), np.array(iop[3:])
    normal = np.cross(row, col)
    origin = np.array([-25.0, -30.0, 100.0])
    if args.centre is not None:
        # PixelSpacing is row spacing \ column spacing: along a row the columns are 0.7 apart
        half = (args.size - 1) / 2.0
        origin = (np.array(args.centre) - half * 0.7 * row - half * 0.8 * col
                  - (args.slices - 1) / 2.0 * args.spacing * normal)
    series_uid = generate_uid()
    os.makedirs(os.path.join(args.out, name), exist_ok=True)
    order = list(range(args.slices))
    if args.shuffle is not None:
        rng.shuffle(order)
    files = []
    for k in order:
        sop = generate_uid()
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = CT_IMAGE, sop
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds = base_dataset(meta, args, study_uid, frame_uid, series_uid, name)
        ipp = origin + k * args.spacing * normal
        ds.InstanceNumber = k + 1
        ds.ImagePositionPatient = ds_text(ipp)
        ds.ImageOrientationPatient = ds_text(iop)
        ds.SliceLocation = float('%.10g' % float(ipp @ normal))
        ds.PixelData = pixels(k, args.size).astype('<i2').tobytes()
        fname = ('%s.dcm' % rng.bytes(6).hex()) if args.shuffle is not None else \
            'slice-%04d.dcm' % (k + 1)
        write(ds, os.path.join(args.out, name, fname))
        files.append({'name': fname, 'index': k, 'position': list(map(float, ds.ImagePositionPatient)),
                      'location': float(np.array(ds.ImagePositionPatient, dtype=float) @ normal),
                      'centre_stored': 2000 + k, 'centre_hu': 2000 + k - 1024})
    return {'dir': name, 'orientation': [float(x) for x in ds_text(iop)],
            'normal': [float(x) for x in normal], 'series_uid': series_uid,
            'series_number': SERIES_NUMBER.get(name, 9),
            'series_description': 'Phantom %s %.1f mm' % (name, args.spacing),
            'files': files}


def make_multiframe(args, study_uid, frame_uid):
    iop = ORIENTATIONS['axial']
    normal = np.cross(iop[:3], iop[3:])
    origin = np.array([-25.0, -30.0, 100.0])
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = ENHANCED_CT_IMAGE, generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = base_dataset(meta, args, study_uid, frame_uid, generate_uid(), 'multiframe')
    ds.InstanceNumber = 1
    ks = list(reversed(range(args.slices)))
    ds.NumberOfFrames = len(ks)
    shared = Dataset()
    po = Dataset()
    po.ImageOrientationPatient = ds_text(iop)
    shared.PlaneOrientationSequence = Sequence([po])
    ds.SharedFunctionalGroupsSequence = Sequence([shared])
    per_frame, frames = [], []
    for k in ks:
        item, pp = Dataset(), Dataset()
        pp.ImagePositionPatient = ds_text(origin + k * args.spacing * normal)
        item.PlanePositionSequence = Sequence([pp])
        per_frame.append(item)
        frames.append({'index': k, 'location': float(np.array(pp.ImagePositionPatient) @ normal)})
    ds.PerFrameFunctionalGroupsSequence = Sequence(per_frame)
    ds.PixelData = np.stack([pixels(k, args.size) for k in ks]).astype('<i2').tobytes()
    write(ds, os.path.join(args.out, 'multiframe.dcm'))
    return {'name': 'multiframe.dcm', 'frames': frames}


def main():
    p = argparse.ArgumentParser()
    p.add_argument('out')
    p.add_argument('--slices', type=int, default=12)
    p.add_argument('--size', type=int, default=64)
    p.add_argument('--spacing', type=float, default=2.5)
    p.add_argument('--orientations', default='axial,sagittal,coronal')
    p.add_argument('--shuffle', type=int)
    p.add_argument('--multiframe', action='store_true')
    p.add_argument('--centre', type=lambda s: [float(x) for x in s.split(',')])
    p.add_argument('--frame-of-reference')
    args = p.parse_args()
    rng = np.random.default_rng(args.shuffle if args.shuffle is not None else 26)
    study_uid, frame_uid = generate_uid(), generate_uid()
    if args.frame_of_reference is not None:
        frame_uid = args.frame_of_reference
        study_uid = generate_uid(entropy_srcs=[frame_uid])
    manifest = {'patient': PATIENT, 'study': dict(STUDY, StudyInstanceUID=study_uid),
                'frame_of_reference': frame_uid, 'spacing': args.spacing,
                'pixel_spacing': [0.8, 0.7], 'size': args.size, 'series': []}
    for name in args.orientations.split(','):
        manifest['series'].append(make_series(args, name, study_uid, frame_uid, rng))
    if args.multiframe:
        manifest['multiframe'] = make_multiframe(args, study_uid, frame_uid)
    json.dump(manifest, sys.stdout, indent=1)


main()
