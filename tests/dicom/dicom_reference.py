# SPDX-License-Identifier: GPL-3.0-or-later
"""What a DICOM image's pixels mean, computed with pydicom and numpy from the standard, as the
independent reference of the value-model tests (make-variants.py, check-derived.py)."""
import numpy as np
import pydicom
from pydicom.pixel_data_handlers.util import apply_modality_lut


def stored_values(ds):
    """Stored values: masked to BitsStored below HighBit and sign-extended for
    PixelRepresentation 1 (PS3.5 8.1.1; pydicom 2.3 does neither for native data)."""
    raw = np.frombuffer(ds.PixelData, '<u2' if ds.BitsAllocated == 16 else 'u1').astype(np.int64)
    v = (raw >> (ds.HighBit + 1 - ds.BitsStored)) & ((1 << ds.BitsStored) - 1)
    if ds.PixelRepresentation == 1:
        v = np.where(v & (1 << (ds.BitsStored - 1)), v - (1 << ds.BitsStored), v)
    return v.reshape(ds.Rows, ds.Columns)


def real_values(ds):
    """Real-world values (PS3.3 C.11.1) through pydicom's apply_modality_lut."""
    return np.asarray(apply_modality_lut(stored_values(ds), ds), dtype=np.float64)


def padding_mask(ds):
    """Pixel padding (PS3.3 C.7.5.1.1.2): stored values from PixelPaddingValue to
    PixelPaddingRangeLimit."""
    stored = stored_values(ds)
    if 'PixelPaddingValue' not in ds:
        return np.zeros(stored.shape, np.uint8)
    a = int(ds.PixelPaddingValue)
    b = int(ds.get('PixelPaddingRangeLimit', a))
    return ((stored >= min(a, b)) & (stored <= max(a, b))).astype(np.uint8)


def multi(ds, keyword):
    """A possibly multi-valued attribute as a list (empty when absent)."""
    v = ds.get(keyword)
    if v is None or v == '':
        return []
    return list(v) if isinstance(v, pydicom.multival.MultiValue) else [v]
