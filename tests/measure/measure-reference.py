#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""measure-reference.py OUTDIR — writes digital CT phantoms of known geometry with pydicom and
prints, as JSON, what every measurement tool must report on them, computed with numpy from
the physical layout (millimetres), independently of Lightbox.

Each phantom (OUTDIR/iso.dcm: 0.7 × 0.7 mm pixels; OUTDIR/aniso.dcm: rows 0.9 mm apart,
columns 0.7 mm, and another rescale) holds:

  - background: −1000 HU, with noise;
  - a disc of radius 20 mm around a centre that is no pixel centre, at about 40 HU with
    noise; the pixels of it more than 12 mm right of the centre hold PixelPaddingValue;
  - three single-pixel markers (stored 3001, 3002, 3003) for the length, angle and polyline;
  - a concave pentagon region and a rectangle region, away from the disc.

The point of a pixel (column c, row r) is its centre, ((c + 0.5) × Δcolumn, (r + 0.5) × Δrow)
mm from the image's top left corner. The references:

  - the disc's pixels are those whose centre lies within 20 mm of the disc's centre (a
    distance in mm, no ellipse formula); the script checks that no centre lies within 1e-6 of
    the circle, so rounding cannot decide a pixel;
  - the pentagon's pixels by the winding number (angles summed with arctan2), which equals
    the even-odd rule for a simple polygon; no centre is within 1e-6 px of an edge;
  - mean, SD (ddof=0), min and max of the HU values (stored × slope + intercept) of the
    pixels inside and not padding, with numpy;
  - lengths and angles from the markers' centres in mm.

Exit status 77 without pydicom/numpy."""
import json
import os
import sys

try:
    import numpy as np
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print('measure-reference.py: %s' % e, file=sys.stderr)
    sys.exit(77)

CT_IMAGE = '1.2.840.10008.5.1.4.1.1.2'
SIZE = 160
PADDING = -2000
RADIUS = 20.0


def write_ct(path, stored, row_mm, col_mm, slope, intercept):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = CT_IMAGE, generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.SOPClassUID, ds.SOPInstanceUID = CT_IMAGE, meta.MediaStorageSOPInstanceUID
    ds.Modality = 'CT'
    ds.PatientName, ds.PatientID = 'Phantom^Measure', 'PH-27'
    ds.StudyInstanceUID, ds.SeriesInstanceUID = generate_uid(), generate_uid()
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
    ds.Rows, ds.Columns = stored.shape
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 1
    ds.RescaleSlope, ds.RescaleIntercept, ds.RescaleType = slope, intercept, 'HU'
    ds.PixelPaddingValue = PADDING
    ds['PixelPaddingValue'].VR = 'SS'          # PixelRepresentation 1
    # row spacing \ column spacing (PS3.3 10.7.1.3)
    ds.PixelSpacing = [row_mm, col_mm]
    ds.PixelData = stored.astype('<i2').tobytes()
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.save_as(path, write_like_original=False)


def stats(hu, mask):
    v = hu[mask]
    return {'n_pixels': int(v.size), 'mean': float(v.mean()), 'sd': float(v.std()),
            'min': float(v.min()), 'max': float(v.max())}


def winding_inside(points, x, y):
    """Winding number of the closed polygon around every (x, y): the sum of the angles the
    edges subtend, over 2π."""
    total = np.zeros_like(x)
    n = len(points)
    for i in range(n):
        ax, ay = points[i][0] - x, points[i][1] - y
        bx, by = points[(i + 1) % n][0] - x, points[(i + 1) % n][1] - y
        total += np.arctan2(ax * by - ay * bx, ax * bx + ay * by)
    return np.abs(np.rint(total / (2 * np.pi))) == 1


def segment_distance(points, x, y):
    d = np.full_like(x, np.inf)
    n = len(points)
    for i in range(n):
        a, b = np.array(points[i]), np.array(points[(i + 1) % n])
        ab = b - a
        t = np.clip(((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / (ab @ ab), 0, 1)
        d = np.minimum(d, np.hypot(x - (a[0] + t * ab[0]), y - (a[1] + t * ab[1])))
    return d


def phantom(out, name, row_mm, col_mm, slope, intercept, seed):
    rng = np.random.default_rng(seed)
    rr, cc = np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing='ij')
    xc, yc = cc + 0.5, rr + 0.5                  # pixel centres, pixels
    xmm, ymm = xc * col_mm, yc * row_mm          # the same in mm

    def to_stored(hu):
        return np.rint((hu - intercept) / slope).astype(np.int32)

    stored = to_stored(-1000 + rng.integers(-20, 21, size=(SIZE, SIZE)) * slope)

    # the disc, centred on no pixel centre
    centre = np.array([41.37, 52.91])            # mm
    d2 = (xmm - centre[0]) ** 2 + (ymm - centre[1]) ** 2
    assert np.min(np.abs(d2 - RADIUS ** 2)) > 1e-6
    disc = d2 <= RADIUS ** 2
    stored[disc] = to_stored(40 + rng.integers(-30, 31, size=int(disc.sum())) * slope)
    padding = disc & (xmm > centre[0] + 12)
    stored[padding] = PADDING

    # a concave pentagon, pixels
    pentagon = [[92.3, 98.7], [151.6, 93.2], [121.7, 121.3], [149.9, 150.3], [90.1, 146.6]]
    assert np.min(segment_distance(pentagon, xc, yc)) > 1e-6
    inside_pentagon = winding_inside(pentagon, xc, yc)
    stored[inside_pentagon] = to_stored(200 + rng.integers(-50, 51, size=int(inside_pentagon.sum()))
                                        * slope)

    # a rectangle, pixels (corners given in the opposite order a user may drag them)
    rect = [[14.2, 150.6], [71.8, 104.3]]
    x0, x1 = sorted([rect[0][0], rect[1][0]])
    y0, y1 = sorted([rect[0][1], rect[1][1]])
    inside_rect = (xc >= x0) & (xc <= x1) & (yc >= y0) & (yc <= y1)
    stored[inside_rect] = to_stored(-300 + rng.integers(-80, 81, size=int(inside_rect.sum()))
                                    * slope)

    # markers: A, the vertex B, C (pixel indices: column, row)
    markers = {3001: (80, 5), 3002: (150, 75), 3003: (60, 155)}
    for value, (c, r) in markers.items():
        stored[r, c] = value
    pa, pb, pc = (np.array([(c + 0.5) * col_mm, (r + 0.5) * row_mm])
                  for c, r in (markers[3001], markers[3002], markers[3003]))
    u, w = pa - pb, pc - pb
    angle = float(np.degrees(np.arccos(u @ w / (np.linalg.norm(u) * np.linalg.norm(w)))))
    # the same angle in pixel units, to show that the anisotropic case depends on the spacing
    upx = np.array([markers[3001][0] - markers[3002][0], markers[3001][1] - markers[3002][1]], float)
    wpx = np.array([markers[3003][0] - markers[3002][0], markers[3003][1] - markers[3002][1]], float)
    angle_px = float(np.degrees(np.arccos(upx @ wpx / (np.linalg.norm(upx) * np.linalg.norm(wpx)))))

    assert stored.min() >= -32768 and stored.max() <= 32767
    path = os.path.join(out, name + '.dcm')
    write_ct(path, stored, row_mm, col_mm, slope, intercept)

    hu = stored * float(slope) + float(intercept)
    not_padding = stored != PADDING
    probe = (int(np.argmax(disc & not_padding) % SIZE), int(np.argmax(disc & not_padding) // SIZE))
    pad_pixel = (int(np.argmax(padding) % SIZE), int(np.argmax(padding) // SIZE))
    pent = np.array(pentagon) * [col_mm, row_mm]
    pent_area = 0.5 * abs(float(np.sum(pent[:, 0] * np.roll(pent[:, 1], -1)
                                       - np.roll(pent[:, 0], -1) * pent[:, 1])))
    return {
        'name': name,
        'file': path,
        'row_mm': row_mm,
        'column_mm': col_mm,
        'disc': dict(stats(hu, disc & not_padding),
                     centre_px=[centre[0] / col_mm, centre[1] / row_mm],
                     radius_px=[RADIUS / col_mm, RADIUS / row_mm],
                     n_padding=int((disc & ~not_padding).sum()),
                     area_mm2=float(np.pi * RADIUS ** 2)),
        'pentagon': dict(stats(hu, inside_pentagon & not_padding), points_px=pentagon,
                         n_padding=0, area_mm2=pent_area),
        'rectangle': dict(stats(hu, inside_rect & not_padding), corners_px=rect, n_padding=0,
                          area_mm2=(x1 - x0) * col_mm * (y1 - y0) * row_mm),
        'markers': {str(k): list(v) for k, v in markers.items()},
        'length_mm': float(np.linalg.norm(pa - pb)),
        'polyline_mm': float(np.linalg.norm(pa - pb) + np.linalg.norm(pc - pb)),
        'angle_deg': angle,
        'angle_px_deg': angle_px,
        'probe': {'pixel': list(probe), 'value': float(hu[probe[1], probe[0]])},
        'padding_pixel': list(pad_pixel),
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = [phantom(out, 'iso', 0.7, 0.7, 1, -1024, 27),
             phantom(out, 'aniso', 0.9, 0.7, 2, -2048, 28)]
    json.dump(cases, sys.stdout)


main()
