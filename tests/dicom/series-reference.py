#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""series-reference.py — cases for the series ordering (LbDicomSeries) with their expected
order computed by numpy, as JSON on stdout:

  [{"case": NAME,
    "instances": [{"name": N, "dataset": {DICOM JSON}}, …],   in the order to add them
    "expected": {"order": [[name, frame], …], "locations": [mm or null, …],
                 "normal": [x, y, z] or null, "spacing": mm, "missing": n,
                 "warnings": ["duplicate", "missing", "irregular", "mixed", "no-position"]}}]

The reference: normal = numpy.cross(row, column) of the orientation most slices share;
location = ImagePositionPatient · normal; order = lexicographic on (no position, location,
no InstanceNumber, InstanceNumber, name, frame); spacing = numpy.median of the gaps between
consecutive distinct locations; missing = Σ round(gap / spacing) − 1 over regular gaps.
Exit status 77 without numpy."""
import json
import sys

try:
    import numpy as np
except ImportError as e:
    print('series-reference.py: %s' % e, file=sys.stderr)
    sys.exit(77)

SAME_MM, GAP_TOL, SAME_IOP = 0.01, 0.1, 1e-3
AXIAL = [1, 0, 0, 0, 1, 0]
SAGITTAL = [0, 1, 0, 0, 0, -1]
rng = np.random.default_rng(2601)


def ds_json(v):
    return [float('%.10g' % x) for x in v]


def rotation(ax, ay, az):
    ax, ay, az = np.radians([ax, ay, az])
    rx = np.array([[1, 0, 0], [0, np.cos(ax), -np.sin(ax)], [0, np.sin(ax), np.cos(ax)]])
    ry = np.array([[np.cos(ay), 0, np.sin(ay)], [0, 1, 0], [-np.sin(ay), 0, np.cos(ay)]])
    rz = np.array([[np.cos(az), -np.sin(az), 0], [np.sin(az), np.cos(az), 0], [0, 0, 1]])
    r = rz @ ry @ rx
    return list(r @ [1, 0, 0]) + list(r @ [0, 1, 0])


def instance(name, ipp=None, iop=None, number=None, frames=None, shared_iop=None):
    d = {'00080060': {'vr': 'CS', 'Value': ['CT']}}
    if ipp is not None:
        d['00200032'] = {'vr': 'DS', 'Value': ds_json(ipp)}
    if iop is not None:
        d['00200037'] = {'vr': 'DS', 'Value': ds_json(iop)}
    if number is not None:
        d['00200013'] = {'vr': 'IS', 'Value': [number]}
    if frames is not None:
        d['00280008'] = {'vr': 'IS', 'Value': [len(frames)]}
        items = []
        for f in frames:
            item = {}
            if f is not None:
                item['00209113'] = {'vr': 'SQ', 'Value': [{'00200032': {'vr': 'DS',
                                                                        'Value': ds_json(f)}}]}
            items.append(item)
        if any(f is not None for f in frames):
            d['52009230'] = {'vr': 'SQ', 'Value': items}
        if shared_iop is not None:
            d['52009229'] = {'vr': 'SQ', 'Value': [{'00209116': {'vr': 'SQ', 'Value': [
                {'00200037': {'vr': 'DS', 'Value': ds_json(shared_iop)}}]}}]}
    return {'name': name, 'dataset': d}


def slices_of(inst):
    """What the reference reads back from the JSON: one slice per frame."""
    d = inst['dataset']
    top_ipp = d.get('00200032', {}).get('Value')
    iop = d.get('00200037', {}).get('Value')
    shared = d.get('52009229', {}).get('Value', [{}])[0]
    if '00209116' in shared:
        iop = shared['00209116']['Value'][0]['00200037']['Value']
    number = d.get('00200013', {}).get('Value', [None])[0]
    n = d.get('00280008', {}).get('Value', [1])[0]
    per = d.get('52009230', {}).get('Value')
    out = []
    for f in range(n):
        ipp = top_ipp if n == 1 else None
        if per is not None and '00209113' in per[f]:
            ipp = per[f]['00209113']['Value'][0]['00200032']['Value']
        out.append({'name': inst['name'], 'frame': f, 'number': number,
                    'ipp': None if ipp is None or iop is None else np.array(ipp, dtype=float),
                    'iop': None if iop is None else np.array(iop, dtype=float)})
    return out


def expected(instances):
    slices = [s for inst in instances for s in slices_of(inst)]
    placed = [s for s in slices if s['ipp'] is not None]
    warnings, normal, spacing, missing = [], None, 0.0, 0
    if placed:
        counts = [sum(np.all(np.abs(a['iop'] - b['iop']) <= SAME_IOP) for b in placed)
                  for a in placed]
        ref = placed[int(np.argmax(counts))]['iop']
        normal = np.cross(ref[:3], ref[3:])
        normal = normal / np.linalg.norm(normal)
        for s in placed:
            s['loc'] = float(s['ipp'] @ normal)
        if any(np.any(np.abs(s['iop'] - ref) > SAME_IOP) for s in placed):
            warnings.append('mixed')
    if 0 < len(placed) < len(slices):
        warnings.append('no-position')

    def key(s):
        return (s['ipp'] is None, s.get('loc', 0.0), s['number'] is None,
                s['number'] if s['number'] is not None else 0, s['name'].encode(), s['frame'])
    slices.sort(key=key)
    locs = np.array([s['loc'] for s in slices if 'loc' in s])
    gaps = np.diff(locs)
    if np.any(gaps < SAME_MM):
        warnings.append('duplicate')
    gaps = gaps[gaps >= SAME_MM]
    if gaps.size:
        spacing = float(np.median(gaps))
        k = np.round(gaps / spacing)
        irregular = (k < 1) | (np.abs(gaps - k * spacing) > GAP_TOL * spacing)
        missing = int(np.sum(k[~irregular] - 1))
        if missing:
            warnings.append('missing')
        if irregular.any():
            warnings.append('irregular')
    return {'order': [[s['name'], s['frame']] for s in slices],
            'locations': [s.get('loc') for s in slices],
            'normal': None if normal is None else [float(x) for x in normal],
            'spacing': spacing, 'missing': missing, 'warnings': sorted(warnings)}


def stack(n, iop, spacing, origin=(10.0, -20.0, 30.0), skip=(), numbers=None):
    normal = np.cross(iop[:3], iop[3:])
    out = []
    for k in range(n):
        if k in skip:
            continue
        out.append(instance('s%03d.dcm' % rng.integers(0, 1000), np.array(origin) + k * spacing * normal,
                            iop, numbers[k] if numbers else k + 1))
    return out


def shuffled(lst):
    lst = list(lst)
    rng.shuffle(lst)
    return lst


cases = []


def case(name, instances):
    # names made unique, so that the order is fully defined by the reference
    for i, inst in enumerate(instances):
        inst['name'] = '%s-%02d.dcm' % (inst['name'][:4], i)
    cases.append({'case': name, 'instances': instances, 'expected': expected(instances)})


case('axial-shuffled', shuffled(stack(20, AXIAL, 1.25)))
case('sagittal-shuffled', shuffled(stack(15, SAGITTAL, 3.0)))
case('oblique-shuffled', shuffled(stack(25, rotation(17, -23, 31), 0.625)))
case('oblique-reversed-numbers', shuffled(stack(10, rotation(-40, 12, 5), 2.0,
                                                numbers=list(range(10, 0, -1)))))
dup = stack(12, AXIAL, 2.0)
dup.append(instance('dupl', dup[4]['dataset']['00200032']['Value'], AXIAL, 99))
dup.append(instance('dupm', dup[7]['dataset']['00200032']['Value'], AXIAL, 3))
case('duplicates', shuffled(dup))
case('missing', shuffled(stack(20, AXIAL, 2.5, skip=(5, 6, 12))))
case('missing-oblique', shuffled(stack(16, rotation(5, 30, -10), 1.5, skip=(3,))))
irr = stack(10, AXIAL, 2.0)
irr.append(instance('irrg', [10.0, -20.0, 30.0 + 9 * 2.0 + 3.1], AXIAL, 11))
case('irregular', shuffled(irr))
mixed = stack(10, AXIAL, 2.0)
mixed.append(instance('sagi', [5.0, -20.0, 40.0], SAGITTAL, 50))
case('mixed-orientation', shuffled(mixed))
np_case = stack(6, AXIAL, 2.0)
np_case += [instance('nopo', None, None, 3), instance('nopo', None, None, None),
            instance('noio', [0, 0, 7.0], None, 1)]
case('no-position', shuffled(np_case))
ties = [instance('tieb', [0, 0, 5.0], AXIAL, None), instance('tiea', [0, 0, 5.0], AXIAL, None),
        instance('tiec', [0, 0, 5.0], AXIAL, 2), instance('tied', [0, 0, 7.0], AXIAL, 1)]
case('ties', shuffled(ties))
# multi-frame: frames stored in a shuffled order, positions per frame, orientation shared
mf_iop = rotation(0, 0, 90)
normal = np.cross(mf_iop[:3], mf_iop[3:])
perm = rng.permutation(9)
case('multiframe-positions', [instance('mfrm', None, None, 1,
                                       frames=[np.array([1.0, 2.0, 3.0]) + k * 1.5 * normal
                                               for k in perm], shared_iop=mf_iop)])
# multi-frame without positions (a cine loop) beside nothing: ordered by frame
case('multiframe-cine', [instance('cine', [0, 0, 0], AXIAL, 1, frames=[None] * 5)])
# multi-frame objects and single-frame ones in one stack
mixed_mf = stack(4, AXIAL, 2.0, origin=(0.0, 0.0, 0.0))
mixed_mf.append(instance('mfmx', None, AXIAL, 5,
                         frames=[np.array([0.0, 0.0, z]) for z in (14.0, 8.0, 10.0, 12.0)]))
case('multiframe-and-single', shuffled(mixed_mf))

json.dump(cases, sys.stdout, indent=1)
