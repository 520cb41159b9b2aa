# SPDX-License-Identifier: GPL-3.0-or-later
"""Gradient magnitude: a Lightbox filter written in Python with numpy.

Copy this file into a plugin directory ($XDG_DATA_HOME/lightbox/plugins, or one listed in
$LIGHTBOX_PLUGIN_PATH) and it appears in Lightbox's Filters menu under "Edges". It needs
python3 and numpy (Debian: python3-numpy); see "Filters in Python" in the plugin guide.

For every colour channel (alpha is kept), the output is

    round(scale × |∇I| ),   |∇I| = sqrt(gx² + gy²)

clipped to the sample range, where gx and gy are the horizontal and vertical derivatives
of the samples:

    sobel:    gx = ((c + 2f + i) − (a + 2d + g)) / 8 over the 3×3 neighbourhood
                   a b c
                   d e f      (gy likewise, bottom row minus top row)
                   g h i
    central:  gx = (f − d) / 2

so a ramp rising by one sample per pixel gives 1 with either operator. Neighbours outside
the region (the selection, or the whole image) repeat the edge pixel. Rounding is half up.
"""

import numpy as np

LIGHTBOX_FILTER = {
    "id": "org.example.python.gradient-magnitude",
    "alias": "gradmag",
    "name": "Gradient Magnitude",
    "category": "Edges",
    "description": "Edge strength |∇I| per channel, Sobel or central differences",
    "version": "1.0",
    "formats": ["gray8", "gray16", "graya8", "graya16", "rgb8", "rgba8", "rgb16", "rgba16"],
    "params": [
        {
            "name": "scale",
            "label": "Scale",
            "description": "Multiplies the magnitude before it is rounded and clipped",
            "type": "double",
            "min": 0.0,
            "max": 64.0,
            "ui_max": 16.0,
            "default": 1.0,
            "step": 0.1,
            "digits": 2,
        },
        {
            "name": "operator",
            "label": "Operator",
            "type": "enum",
            "values": [("sobel", "Sobel 3×3"), ("central", "Central differences")],
            "default": "sobel",
        },
    ],
}


def _derivatives(plane, operator):
    """gx, gy of one channel (float64), edge pixels repeated."""
    p = np.pad(plane.astype(np.float64), 1, mode="edge")
    if operator == "central":
        return (p[1:-1, 2:] - p[1:-1, :-2]) / 2.0, (p[2:, 1:-1] - p[:-2, 1:-1]) / 2.0
    # Sobel: smoothing [1 2 1] across, difference along
    rows = p[:-2, :] + 2.0 * p[1:-1, :] + p[2:, :]
    cols = p[:, :-2] + 2.0 * p[:, 1:-1] + p[:, 2:]
    return (rows[:, 2:] - rows[:, :-2]) / 8.0, (cols[2:, :] - cols[:-2, :]) / 8.0


def process(src, dst, params, meta):
    """src: read-only (h, w) or (h, w, c) uint8/uint16 array; dst: the same, writable, holding
    a copy of src (so alpha is already there); params: {"scale": float, "operator": str};
    meta: what the samples mean (unused here)."""
    top = np.iinfo(src.dtype).max
    colours = src.shape[2] - (1 if meta["format"].endswith(("a8", "a16")) else 0) \
        if src.ndim == 3 else 0
    planes = [(src, dst)] if src.ndim == 2 else \
        [(src[:, :, c], dst[:, :, c]) for c in range(colours)]
    for s, d in planes:
        gx, gy = _derivatives(s, params["operator"])
        magnitude = np.sqrt(gx * gx + gy * gy) * params["scale"]
        d[...] = np.clip(np.floor(magnitude + 0.5), 0, top)
