# SPDX-License-Identifier: GPL-3.0-or-later
"""Downsample 2×: a Lightbox filter in Python whose output has another size.

Copy it into a plugin directory; it appears under "Transform". See "Filters in Python" in
the plugin guide.

prepare() declares the output: half the width and height, rounded down (at least 1). Each
output pixel is the mean of its 2×2 block of source pixels, rounded half up, for every
channel including alpha; an odd last row or column of the source is left out.
"""

import numpy as np

LIGHTBOX_FILTER = {
    "id": "org.example.python.downsample2x",
    "name": "Downsample 2×",
    "category": "Transform",
    "description": "Half the size, each pixel the mean of a 2×2 block",
    "version": "1.0",
    "formats": ["gray8", "gray16", "graya8", "graya16", "rgb8", "rgba8", "rgb16", "rgba16"],
}


def prepare(src_shape, params, meta):
    """The output's (height, width): the host allocates dst of that shape, in the source's
    format (a third item would name another format)."""
    height, width = src_shape[:2]
    if height < 2 or width < 2:
        raise ValueError("a %d×%d image is too small to halve" % (width, height))
    return height // 2, width // 2


def process(src, dst, params, meta):
    """src: the whole source; dst: the whole output, of prepare()'s shape."""
    h, w = dst.shape[:2]
    s = src[:2 * h, :2 * w].astype(np.uint32)
    total = s[0::2, 0::2] + s[0::2, 1::2] + s[1::2, 0::2] + s[1::2, 1::2]
    dst[...] = (total + 2) // 4
