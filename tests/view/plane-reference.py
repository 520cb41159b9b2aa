#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""plane-reference.py DIR — the reference lines and nearest slices that lb-plane-geometry must
give, computed another way with numpy: the line where two planes meet is solved as a linear
system (its direction n_a × n_b, a point on both planes), clipped to the active image's
rectangle in that image's own pixel positions (Liang–Barsky), mapped into the target's pixel
positions by least squares on the target's affine map (PS3.3 C.7.6.2.1.1, equation
C.7.6.2.1-1), not by projection onto its axes, and clipped there to the target's rectangle.

Prints JSON: {"lines": [{"image": PLANE, "target": PLANE, "line": [i0, j0, i1, j1] or null}],
"nearest": [{"planes": [PLANE...], "point": [x, y, z], "index": k}]}, a PLANE being
{"ipp": [3], "iop": [6], "spacing": [row, column], "rows": R, "columns": C}. DIR is unused.
Exit status 77 without numpy."""
import json
import sys

try:
    import numpy as np
except ImportError as e:
    print('plane-reference.py: %s' % e, file=sys.stderr)
    sys.exit(77)

rng = np.random.default_rng(2601)

AXIAL = [1, 0, 0, 0, 1, 0]
SAGITTAL = [0, 1, 0, 0, 0, -1]
CORONAL = [1, 0, 0, 0, 0, -1]


def rotated(iop, ax, az):
    a, b = np.radians(ax), np.radians(az)
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    rz = np.array([[np.cos(b), -np.sin(b), 0], [np.sin(b), np.cos(b), 0], [0, 0, 1]])
    r = rz @ rx
    return list(r @ np.array(iop[:3], float)) + list(r @ np.array(iop[3:], float))


def plane(ipp, iop, spacing, rows, columns):
    return {'ipp': [float(x) for x in ipp], 'iop': [float(x) for x in iop],
            'spacing': [float(x) for x in spacing], 'rows': rows, 'columns': columns}


def centred(iop, spacing, rows, columns):
    """A plane whose image centre lies within 40 mm of the origin, so that most pairs meet."""
    x, y = np.array(iop[:3]), np.array(iop[3:])
    centre = rng.uniform(-40, 40, 3)
    ipp = centre - (columns - 1) / 2 * spacing[1] * x - (rows - 1) / 2 * spacing[0] * y
    return plane(ipp, iop, spacing, rows, columns)


def affine(p):
    """4×4 matrix taking (i, j, 0, 1) to patient (x, y, z, 1)."""
    x, y = np.array(p['iop'][:3]), np.array(p['iop'][3:])
    m = np.zeros((4, 4))
    m[:3, 0] = x * p['spacing'][1]
    m[:3, 1] = y * p['spacing'][0]
    m[:3, 2] = np.cross(x, y)
    m[:3, 3] = p['ipp']
    m[3, 3] = 1
    return m


def normal(p):
    return np.cross(p['iop'][:3], p['iop'][3:])


def reference_line(img, tgt):
    na, nb = normal(img), normal(tgt)
    d = np.cross(na, nb)
    if np.linalg.norm(d) < np.sin(np.radians(0.5)):
        return None
    # a point on both planes, and on the plane through the origin normal to d
    a = np.array([na, nb, d])
    b = np.array([na @ img['ipp'], nb @ tgt['ipp'], 0.0])
    p0 = np.linalg.solve(a, b)
    # the line in the image's pixel positions: (i, j) = q0 + t · dq
    inv = np.linalg.inv(affine(img))
    q0 = (inv @ np.append(p0, 1))[:2]
    dq = (inv @ np.append(d, 0))[:2]
    lo, hi = -np.inf, np.inf
    for k, (mn, mx) in enumerate([(-0.5, img['columns'] - 0.5), (-0.5, img['rows'] - 0.5)]):
        if abs(dq[k]) < 1e-12:
            if not (mn <= q0[k] <= mx):
                return None
            continue
        t1, t2 = (mn - q0[k]) / dq[k], (mx - q0[k]) / dq[k]
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    if not lo < hi:
        return None
    # the same line in the target's pixel positions, clipped to the target's rectangle
    mt = affine(tgt)[:3, :2]
    r0, *_ = np.linalg.lstsq(mt, p0 - np.array(tgt['ipp']), rcond=None)
    dr, *_ = np.linalg.lstsq(mt, d, rcond=None)
    for k, (mn, mx) in enumerate([(-0.5, tgt['columns'] - 0.5), (-0.5, tgt['rows'] - 0.5)]):
        if abs(dr[k]) < 1e-12:
            if not (mn <= r0[k] <= mx):
                return None
            continue
        t1, t2 = (mn - r0[k]) / dr[k], (mx - r0[k]) / dr[k]
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    if not lo < hi:
        return None
    return [float(x) for x in list(r0 + lo * dr) + list(r0 + hi * dr)]


def main():
    lines = []
    # the phantom's three planes (make-phantom.py) through each other, and random obliques
    base = np.array([-25.0, -30.0, 100.0])
    named = [AXIAL, SAGITTAL, CORONAL, rotated(AXIAL, 20, 15), rotated(SAGITTAL, -10, 30)]
    for ia in named:
        for it in named:
            img = plane(base + rng.uniform(-20, 20, 3), ia, [0.8, 0.7], 64, 48)
            tgt = plane(base + rng.uniform(-20, 20, 3), it, [0.5, 0.9], 80, 96)
            lines.append({'image': img, 'target': tgt, 'line': reference_line(img, tgt)})
    for _ in range(60):
        q, _r = np.linalg.qr(rng.normal(size=(3, 3)))
        ia = list(q[:, 0]) + list(q[:, 1])
        q, _r = np.linalg.qr(rng.normal(size=(3, 3)))
        it = list(q[:, 0]) + list(q[:, 1])
        img = centred(ia, rng.uniform(0.3, 1.5, 2), int(rng.integers(16, 600)),
                      int(rng.integers(16, 600)))
        tgt = centred(it, rng.uniform(0.3, 1.5, 2), int(rng.integers(16, 600)),
                      int(rng.integers(16, 600)))
        lines.append({'image': img, 'target': tgt, 'line': reference_line(img, tgt)})
    nearest = []
    for spacing in (2.5, 4.0, 1.25):
        iop = AXIAL if spacing != 1.25 else rotated(AXIAL, 20, 15)
        n = np.cross(iop[:3], iop[3:])
        planes = [plane(base + k * spacing * n, iop, [0.8, 0.7], 64, 64) for k in range(12)]
        for _ in range(10):
            point = base + rng.uniform(-10, 40, 3)
            locations = np.array([np.array(p['ipp']) @ n for p in planes])
            nearest.append({'planes': planes, 'point': [float(x) for x in point],
                            'index': int(np.argmin(np.abs(locations - point @ n)))})
    json.dump({'lines': lines, 'nearest': nearest}, sys.stdout)


main()
