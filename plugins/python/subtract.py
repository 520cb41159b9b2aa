# SPDX-License-Identifier: GPL-3.0-or-later
"""Subtract: a Lightbox filter in Python that reads a second image (DSA-style subtraction).

Copy it into a plugin directory; it appears under "Arithmetic". The second image (the mask,
say the pre-contrast frame) is picked in the filter's dialog, or given to lightbox-cli with
`filter --aux FILE`; it has the source's size and format. See "Filters in Python" in the
plugin guide.

For every channel (alpha is kept from the source):

    out = clip(a − b + offset, 0, top)

with a the source's sample, b the second image's, and top 255 or 65535.
"""

import numpy as np

LIGHTBOX_FILTER = {
    "id": "org.example.python.subtract",
    "name": "Subtract Second Image",
    "category": "Arithmetic",
    "description": "The source minus a second image, plus an offset",
    "version": "1.0",
    "formats": ["gray8", "gray16", "graya8", "graya16", "rgb8", "rgba8", "rgb16", "rgba16"],
    # a second input: meta["aux"] holds it as a read-only array like src
    "inputs": 2,
    "params": [
        {"name": "offset", "label": "Offset", "type": "int", "min": -65535, "max": 65535,
         "ui_min": -4096, "ui_max": 4096, "default": 0, "unit": "sample",
         "description": "Added after the subtraction (half the range shows both signs)"},
    ],
}


def process(src, dst, params, meta):
    """src, dst: the region (the selection, or the whole image); meta["aux"]: the whole
    second image; meta["region"]: where src lies in the image, [x, y, width, height]."""
    aux = meta["aux"]
    x, y, w, h = meta["region"]
    width, height = meta["size"]
    if aux.shape[:2] != (height, width) or aux.shape[2:] != src.shape[2:] \
            or aux.dtype != src.dtype:
        raise ValueError("the second image must have the size and the format of the image "
                         "(%d×%d %s), not %d×%d %s" % (width, height, meta["format"],
                                                      aux.shape[1], aux.shape[0], aux.dtype))
    b = aux[y:y + h, x:x + w]
    colours = src.shape[2] - 1 if src.ndim == 3 and meta["format"].endswith(("a8", "a16")) \
        else None
    top = np.iinfo(src.dtype).max
    diff = src.astype(np.int64) - b.astype(np.int64) + params["offset"]
    if colours is None:
        dst[...] = np.clip(diff, 0, top)
    else:
        dst[..., :colours] = np.clip(diff[..., :colours], 0, top)

