#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerates tests/data/dicomweb from python3-pydicom's sample files (MIT licensed).

For each sample: NAME.json is the data set in the DICOM JSON model (PS3.18 §F), as a WADO-RS
metadata response carries it (Pixel Data left out); NAME.frame holds the raw Pixel Data bytes
in the file's own transfer syntax; NAME.pixels is pydicom's pixel_array as little-endian
int16/uint16, the independent reference the decoder is checked against.
Run with Debian's /usr/bin/python3 (python3-pydicom, python3-numpy)."""
import json, os, shutil, sys
import pydicom
from pydicom.data import get_testdata_file

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'data', 'dicomweb')
os.makedirs(out, exist_ok=True)
for name in ('CT_small', 'MR_small_bigendian'):
    ds = pydicom.dcmread(get_testdata_file(name + '.dcm'))
    arr = ds.pixel_array
    meta = ds.to_json_dict(bulk_data_threshold=1 << 30)
    meta.pop('7FE00010', None)
    with open(os.path.join(out, name + '.json'), 'w') as f:
        json.dump([meta], f, indent=1, sort_keys=True)
    with open(os.path.join(out, name + '.frame'), 'wb') as f:
        f.write(ds.PixelData)
    dt = '<i2' if ds.PixelRepresentation == 1 else '<u2'
    with open(os.path.join(out, name + '.pixels'), 'wb') as f:
        f.write(arr.astype(dt).tobytes())
    print(name, ds.file_meta.TransferSyntaxUID, arr.shape, arr.dtype, arr.min(), arr.max())
shutil.copy(get_testdata_file('test1.json'), out)
shutil.copy(get_testdata_file('test_PN.json'), out)
