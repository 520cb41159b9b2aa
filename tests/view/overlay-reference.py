#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""overlay-reference.py OUTDIR — makes the digital phantom (tests/dicom/make-phantom.py:
axial, sagittal, coronal and oblique series) in OUTDIR and prints, as JSON, for one slice of
each series what the overlay must show, computed independently of Lightbox:

  - the orientation letters of the four screen edges for every rotation (quarter turns
    clockwise) and horizontal/vertical flip: the patient coordinates of every pixel centre,
    IPP + c·Δc·row + r·Δr·column (PS3.3 C.7.6.2.1.1), as a numpy array, turned and flipped
    with numpy.rot90/flip like the picture on the screen; the direction towards an edge is
    the difference of the patient points at the middles of the opposite edges;
  - the corner texts from pydicom's reading of the file.

Exit status 77 without pydicom/numpy."""
import datetime
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import pydicom
except ImportError as e:
    print('overlay-reference.py: %s' % e, file=sys.stderr)
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
r = subprocess.run([sys.executable, os.path.join(here, '..', 'dicom', 'make-phantom.py'), out,
                    '--slices', '5', '--size', '24',
                    '--orientations', 'axial,sagittal,coronal,oblique'],
                   stdout=subprocess.PIPE, check=False)
if r.returncode == 77:
    sys.exit(77)
r.check_returncode()
manifest = json.loads(r.stdout)


def letters(d):
    """Dominant patient direction first, the second when not negligible."""
    names = (('R', 'L'), ('A', 'P'), ('F', 'H'))
    order = sorted(range(3), key=lambda i: -abs(d[i]))
    s = names[order[0]][d[order[0]] > 0]
    if abs(d[order[1]]) > 1e-3 * np.linalg.norm(d):
        s += names[order[1]][d[order[1]] > 0]
    return s


def mm(label, v):
    t = ('%.2f' % v).rstrip('0').rstrip('.')
    return '%s %s mm' % (label, '0' if t == '-0' else t)


cases = []
for series in manifest['series']:
    f = series['files'][2]
    path = os.path.join(out, series['dir'], f['name'])
    ds = pydicom.dcmread(path)
    ipp = np.array(ds.ImagePositionPatient, dtype=float)
    iop = np.array(ds.ImageOrientationPatient, dtype=float)
    drow, dcol = (float(x) for x in ds.PixelSpacing)
    rows, cols = int(ds.Rows), int(ds.Columns)
    rr, cc = np.meshgrid(np.arange(rows), np.arange(cols), indexing='ij')
    points = ipp + cc[..., None] * dcol * iop[:3] + rr[..., None] * drow * iop[3:]
    markers = []
    for rot in range(4):
        for fh in (False, True):
            for fv in (False, True):
                a = np.rot90(points, k=-rot, axes=(0, 1))  # clockwise on the screen
                if fh:
                    a = a[:, ::-1]
                if fv:
                    a = a[::-1, :]
                h, w = a.shape[:2]
                up = a[0, w // 2] - a[h - 1, w // 2]
                right = a[h // 2, w - 1] - a[h // 2, 0]
                markers.append({'rotation': rot, 'flip_h': fh, 'flip_v': fv,
                                'edges': [letters(up), letters(right), letters(-up),
                                          letters(-right)]})
    pn = ds.PatientName
    name = ('%s, %s %s' % (pn.family_name, pn.given_name, pn.middle_name)).strip()
    date = datetime.datetime.strptime(ds.StudyDate, '%Y%m%d').date().isoformat()
    # the RescaleType, Hounsfield units for CT without one (PS3.3 C.11.1.1.2)
    units = ds.get('RescaleType') or ('HU' if ds.Modality == 'CT' else None)
    corners = {
        'top_left': '\n'.join([name, 'ID %s' % ds.PatientID,
                               '%s %s' % (ds.PatientSex, ds.PatientAge)]),
        'top_right': '\n'.join([date, ds.StudyDescription]),
        # slice 3 of 5 at the file's SliceLocation
        'bottom_left': '\n'.join(['Se %d %s' % (ds.SeriesNumber, ds.SeriesDescription), 'Im 3/5',
                                  mm('Loc', float(ds.SliceLocation)),
                                  mm('Thk', float(ds.SliceThickness))]),
        # W/L 400/40 at 150 % as the view says, in the unit of the rescaled values
        'bottom_right': 'W 400 L 40%s\nZoom 150%%' % (' ' + units if units else ''),
    }
    cases.append({'series': series['dir'], 'file': path, 'markers': markers, 'corners': corners})
json.dump(cases, sys.stdout, indent=1)
