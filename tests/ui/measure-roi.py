#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""measure-roi.py DIR — what measurements drawn in the workstation must report, from numpy.

DIR/query.json: {"file": a DICOM file, "measurements": [{"tool": ..., "points": [[x, y], ...]},
...]} with points in image pixel coordinates (pixel (c, r) covers [c, c+1) x [r, r+1)).
Prints a JSON list, one object per measurement:

  - length, polyline: the distance in mm along the points, each pixel step scaled by
    PixelSpacing (row, column); angle: at the middle point, in degrees, from mm vectors;
  - ellipse and rectangle: the pixels whose centre (c + 0.5, r + 0.5) is inside the shape
    (the ellipse by its equation, the rectangle by its sides, border included), their count,
    the padding among them (PixelPaddingValue), and mean, SD (ddof=0), min and max of the
    modality values (stored x RescaleSlope + RescaleIntercept) of the others; the shape's
    area in mm^2.

pydicom decodes the file and numpy counts: nothing of Lightbox is used. Exit status 77
without them."""
import json
import math
import os
import sys

try:
    import numpy as np
    import pydicom
except ImportError as e:
    print('measure-roi.py: %s' % e, file=sys.stderr)
    sys.exit(77)


def region(ds, tool, points):
    stored = ds.pixel_array.astype(np.int64)
    rows, cols = stored.shape
    row_mm, col_mm = (float(v) for v in ds.PixelSpacing)
    values = stored * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
    padding = stored == int(ds.PixelPaddingValue) if 'PixelPaddingValue' in ds else \
        np.zeros_like(stored, dtype=bool)
    yc, xc = np.mgrid[0:rows, 0:cols].astype(np.float64) + 0.5
    (x0, y0), (x1, y1) = points
    if tool == 'ellipse':
        cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, abs(x1 - x0) / 2, abs(y1 - y0) / 2
        inside = ((xc - cx) / rx) ** 2 + ((yc - cy) / ry) ** 2 <= 1
        area = math.pi * rx * ry * row_mm * col_mm
    else:
        inside = ((xc >= min(x0, x1)) & (xc <= max(x0, x1))
                  & (yc >= min(y0, y1)) & (yc <= max(y0, y1)))
        area = abs(x1 - x0) * abs(y1 - y0) * row_mm * col_mm
    counted = values[inside & ~padding]
    return {
        'n_pixels': int(counted.size),
        'n_padding': int((inside & padding).sum()),
        'mean': float(counted.mean()),
        'sd': float(counted.std()),
        'min': float(counted.min()),
        'max': float(counted.max()),
        'area_mm2': area,
    }


def main():
    d = sys.argv[1]
    with open(os.path.join(d, 'query.json')) as f:
        query = json.load(f)
    ds = pydicom.dcmread(query['file'])
    row_mm, col_mm = (float(v) for v in ds.PixelSpacing)
    out = []
    for m in query['measurements']:
        mm = [np.array([x * col_mm, y * row_mm]) for x, y in m['points']]
        if m['tool'] in ('length', 'polyline'):
            out.append({'length_mm': float(sum(np.linalg.norm(b - a)
                                               for a, b in zip(mm, mm[1:])))})
        elif m['tool'] == 'angle':
            u, w = mm[0] - mm[1], mm[2] - mm[1]
            out.append({'angle_deg': float(np.degrees(np.arccos(
                np.clip(u @ w / (np.linalg.norm(u) * np.linalg.norm(w)), -1, 1))))})
        else:
            out.append(region(ds, m['tool'], m['points']))
    print(json.dumps(out))


main()
