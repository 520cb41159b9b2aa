#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""stack-slices.py DIR — the slices of test-store-stack.c, written by Pillow from numpy.

DIR/stack/slice1.png … slice12.png: 16-bit greyscale PNGs of 24 × 16 pixels, slice k holding
1000·k + x + 32·y at (x, y), so that every slice and every pixel is distinct. The names make
natural order (slice2 before slice10) differ from byte order (slice10 before slice2).
DIR/mixed/: three such slices and odd.png, 20 × 16, which makes the folder not one stack.
Each file is read back with Pillow to check it holds 16-bit samples. Prints JSON: the slices'
names in natural order and each one's samples, row by row. Exit 77 without numpy or Pillow."""
import json, os, sys

try:
    import numpy as np
    from PIL import Image
except ImportError as e:
    print('stack-slices.py: %s' % e)
    sys.exit(77)

W, H, N = 24, 16, 12
d = sys.argv[1]


def write(path, k, width=W):
    y, x = np.mgrid[0:H, 0:width]
    a = (1000 * k + x + 32 * y).astype(np.uint16)
    Image.fromarray(a, mode='I;16').save(path)
    back = np.array(Image.open(path))
    assert back.dtype.itemsize == 2 or back.max() > 255, path
    assert (back.astype(np.int64) == a).all(), path
    return a


out = {'width': W, 'height': H, 'slices': []}
os.makedirs(os.path.join(d, 'stack'))
for k in range(1, N + 1):
    name = 'slice%d.png' % k
    a = write(os.path.join(d, 'stack', name), k)
    out['slices'].append({'name': name, 'samples': a.flatten().tolist()})
os.makedirs(os.path.join(d, 'mixed'))
for k in range(1, 4):
    write(os.path.join(d, 'mixed', 'slice%d.png' % k), k)
write(os.path.join(d, 'mixed', 'odd.png'), 4, width=20)
print(json.dumps(out))
