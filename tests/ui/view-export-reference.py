#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""view-export-reference.py DIR — the view Lightbox exported (win.export-view) against numpy.

DIR/params.json names the exported PNG ("view"), the source PNG ("source", a 16-bit CT sample
whose lightbox:rescale text chunk holds slope and intercept to Hounsfield units), the window
("center", "width", in HU) and where the test saw the canvas put the image's first pixel at zoom
1 ("x0", "y0"), and the canvas' size. Independently of Lightbox's lookup table, the displayed
grey of every source pixel is PS3.3 C.11.2.1.2.1's linear window on the rescaled value; the
exported image must hold exactly those greys (±1 for rounding) in that place, and clearly not
one pixel off; the bottom-right corner of the canvas (the overlay's W/L and zoom lines) must
hold light text on a dark outline, and over an image that is white everywhere ("bright", the
same view zoomed in with a window below air) the corner must still hold the outline's dark
pixels. With "measured" (the same view with a length measurement drawn from widget point
"line"[0:2] to "line"[2:4]), the line must be burnt in: the export, grey everywhere on the image
otherwise, holds coloured pixels (red and blue apart by more than 60) within a pixel of every
point along the line away from its ends, where the plain view holds none. Prints a JSON summary; exit 77 without numpy or Pillow."""
import json, os, sys

try:
    import numpy as np
    from PIL import Image
except ImportError as e:
    print('view-export-reference.py: %s' % e)
    sys.exit(77)

d = sys.argv[1]
p = json.load(open(os.path.join(d, 'params.json')))
src = Image.open(p['source'])
slope, intercept = (float(v) for v in src.info['lightbox:rescale'].split())
stored = np.array(src, dtype=np.float64)
hu = stored * slope + intercept
c, w = float(p['center']), float(p['width'])
# PS3.3 C.11.2.1.2.1, LINEAR, to 0..255
lo, hi = c - 0.5 - (w - 1) / 2, c - 0.5 + (w - 1) / 2
grey = ((hu - (c - 0.5)) / (w - 1) + 0.5) * 255
grey = np.where(hu <= lo, 0, np.where(hu > hi, 255, grey))
expected = np.clip(np.rint(grey), 0, 255)

view = np.array(Image.open(p['view']).convert('RGB'), dtype=np.int32)
assert view.shape[0] >= p['canvas_height'] and view.shape[1] >= p['canvas_width'], view.shape
r, g, b = view[..., 0], view[..., 1], view[..., 2]
h, wd = expected.shape


def match(x0, y0):
    region = view[y0:y0 + h, x0:x0 + wd, 0]
    if region.shape != expected.shape:
        return 0.0
    return float(np.mean(np.abs(region - expected) <= 1))


x0, y0 = p['x0'], p['y0']
exact = match(x0, y0)
grey_region = view[y0:y0 + h, x0:x0 + wd]
is_grey = bool(np.all(grey_region[..., 0] == grey_region[..., 1])
               and np.all(grey_region[..., 1] == grey_region[..., 2]))
shifted = max(match(x0 + dx, y0 + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))

# the overlay's bottom-right corner, outside the image
cw, ch = p['canvas_width'], p['canvas_height']
corner = view[ch - 70:ch, max(cw - 260, x0 + wd):cw]
lum = corner.mean(axis=2)
light = int(np.sum(lum > 200))
dark_next_to_light = 0
if light:
    ys, xs = np.nonzero(lum > 200)
    for y, x in zip(ys, xs):
        for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            yy, xx = y + dy, x + dx
            if 0 <= yy < lum.shape[0] and 0 <= xx < lum.shape[1] and lum[yy, xx] < 60:
                dark_next_to_light += 1
                break

# the same corner over an image that is white everywhere ("bright"): the text stays readable
# because its outline is dark; without one the corner would hold no dark pixel at all
bright = np.array(Image.open(p['bright']).convert('RGB'), dtype=np.int32)
bcorner = bright[ch - 70:ch, cw - 260:cw].mean(axis=2)
bright_dark = int(np.sum(bcorner < 60))
bright_white = float(np.mean(bright[ch // 2 - 20:ch // 2 + 20, cw // 2 - 20:cw // 2 + 20] > 250))

# the measurement's line, burnt in: coloured where the plain view is grey
line_hits = line_plain = None
if 'measured' in p:
    meas = np.array(Image.open(p['measured']).convert('RGB'), dtype=np.int32)
    coloured = np.abs(meas[..., 0] - meas[..., 2]) > 60
    plain = np.abs(view[..., 0] - view[..., 2]) > 60
    lx0, ly0, lx1, ly1 = p['line']
    line_hits = line_plain = 0
    samples = [0.1 + 0.8 * i / 99 for i in range(100)]
    for t in samples:
        x, y = int(lx0 + t * (lx1 - lx0)), int(ly0 + t * (ly1 - ly0))
        line_hits += bool(coloured[y - 1:y + 2, x - 1:x + 2].any())
        line_plain += bool(plain[y - 1:y + 2, x - 1:x + 2].any())

summary = {'match': exact, 'line_hits': line_hits, 'line_plain': line_plain, 'bright_corner_dark_pixels': bright_dark,
           'bright_centre_white': bright_white, 'shifted_match': shifted, 'grey': is_grey,
           'corner_light_pixels': light, 'outlined_light_pixels': dark_next_to_light,
           'distinct_greys': int(len(np.unique(expected)))}
print(json.dumps(summary))
assert len(np.unique(expected)) > 50, 'the window leaves too few greys to tell places apart'
assert exact >= 0.999, summary
assert is_grey, summary
assert shifted < 0.9, summary
assert light >= 30, summary
assert dark_next_to_light >= light // 2, summary
assert bright_white == 1.0, summary
# a one-pixel outline all round: 723 dark pixels here, against 182 for the soft shadow
# the overlay had before (Debian 12, its default font)
assert bright_dark >= 400, summary
if line_hits is not None:
    assert line_hits == 100 and line_plain == 0, summary
