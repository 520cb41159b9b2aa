#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-bad-files.py OUTDIR CT_small.dcm  — inconsistent and hostile DICOM files.

Variants of a good CT made with pydicom (one attribute changed each), and structures pydicom
will not write (bombs, impossible lengths) built byte by byte behind a valid meta header. The
test (test-dicom-bad-input.c) knows what each must be refused with. Exit status 77 without
pydicom."""
import os, struct, sys, zlib

try:
    import pydicom
    from pydicom.dataset import FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, ImplicitVRLittleEndian
except ImportError as e:
    print('make-bad-files.py: %s' % e)
    sys.exit(77)

out, source = sys.argv[1], sys.argv[2]


def variant(name, change):
    ds = pydicom.dcmread(source)
    change(ds)
    ds.save_as(os.path.join(out, name), write_like_original=False)


def set_attr(**kw):
    def change(ds):
        for k, v in kw.items():
            setattr(ds, k, v)
    return change


variant('bits-stored-17.dcm', set_attr(BitsStored=17))
variant('high-bit-16.dcm', set_attr(HighBit=16))
variant('short-pixel-data.dcm', lambda ds: setattr(ds, 'PixelData', ds.PixelData[:1000]))
variant('absurd-size.dcm', set_attr(Rows=65535, Columns=65535))
variant('absurd-frames.dcm', set_attr(NumberOfFrames=2147483647))
variant('no-rows.dcm', lambda ds: delattr(ds, 'Rows'))


def unknown_ts(ds):
    ds.file_meta.TransferSyntaxUID = '1.2.3'
variant('unknown-transfer-syntax.dcm', unknown_ts)


# ---- files pydicom will not write: a meta header, then raw data set bytes -------------------

def element(group, elem, vr, value):
    head = struct.pack('<HH', group, elem) + vr.encode()
    if vr in ('OB', 'OW', 'OV', 'SQ', 'UN', 'UT'):
        return head + b'\0\0' + struct.pack('<I', len(value)) + value
    return head + struct.pack('<H', len(value)) + value


def part10(name, ts, data_set):
    meta = element(0x0002, 0x0001, 'OB', b'\0\1')
    meta += element(0x0002, 0x0002, 'UI', b'1.2.840.10008.5.1.4.1.1.7\0')
    meta += element(0x0002, 0x0003, 'UI', b'1.2.3.4\0')
    uid = ts.encode()
    meta += element(0x0002, 0x0010, 'UI', uid + (b'\0' if len(uid) % 2 else b''))
    meta = element(0x0002, 0x0000, 'UL', struct.pack('<I', len(meta))) + meta
    with open(os.path.join(out, name), 'wb') as f:
        f.write(b'\0' * 128 + b'DICM' + meta + data_set)


UNDEFINED = struct.pack('<I', 0xFFFFFFFF)
ITEM = struct.pack('<HH', 0xFFFE, 0xE000)
ITEM_END = struct.pack('<HHI', 0xFFFE, 0xE00D, 0)
SEQ_END = struct.pack('<HHI', 0xFFFE, 0xE0DD, 0)
SOP = element(0x0008, 0x0016, 'UI', b'1.2.840.10008.5.1.4.1.1.7\0')

# 100 sequences inside each other (ContentSequence), undefined lengths
nest = b''
for _ in range(100):
    nest = (struct.pack('<HH', 0x0040, 0xA730) + b'SQ\0\0' + UNDEFINED + ITEM + UNDEFINED
            + nest + ITEM_END + SEQ_END)
part10('nesting-bomb.dcm', ExplicitVRLittleEndian, SOP + nest)

# 600 000 empty items in one sequence
items = ITEM + struct.pack('<I', 0)
part10('item-bomb.dcm', ExplicitVRLittleEndian,
       SOP + struct.pack('<HH', 0x0040, 0xA730) + b'SQ\0\0' + UNDEFINED + items * 600000
       + SEQ_END)

# 4.2 million US values in one Implicit VR element (LUT data has a 4-byte length there)
n = 4200000
part10('value-bomb.dcm', ImplicitVRLittleEndian,
       struct.pack('<HHI', 0x0008, 0x0016, 26) + b'1.2.840.10008.5.1.4.1.1.7\0'
       + struct.pack('<HHI', 0x0028, 0x0010, n * 2) + b'\0' * (n * 2))

# an element that claims 4 GiB − 16 bytes
part10('huge-length.dcm', ExplicitVRLittleEndian,
       SOP + struct.pack('<HH', 0x0009, 0x1010) + b'UN\0\0' + struct.pack('<I', 0xFFFFFFF0)
       + b'\0' * 64)

# 20 MB of zeros deflated to a few kilobytes
z = zlib.compressobj(9, zlib.DEFLATED, -15)
body = SOP + struct.pack('<HH', 0x7FE0, 0x0010) + b'OB\0\0' + struct.pack('<I', 20 << 20) \
    + b'\0' * (20 << 20)
part10('deflate-bomb.dcm', '1.2.840.10008.1.2.1.99', z.compress(body) + z.flush())


def image_module(rows, cols, frames):
    return (element(0x0028, 0x0002, 'US', struct.pack('<H', 1))
            + element(0x0028, 0x0004, 'CS', b'MONOCHROME2 ')
            + element(0x0028, 0x0008, 'IS', str(frames).encode().ljust(2))
            + element(0x0028, 0x0010, 'US', struct.pack('<H', rows))
            + element(0x0028, 0x0011, 'US', struct.pack('<H', cols))
            + element(0x0028, 0x0100, 'US', struct.pack('<H', 8))
            + element(0x0028, 0x0101, 'US', struct.pack('<H', 8))
            + element(0x0028, 0x0102, 'US', struct.pack('<H', 7))
            + element(0x0028, 0x0103, 'US', struct.pack('<H', 0)))


def fragments(bot, frags):
    data = struct.pack('<HH', 0x7FE0, 0x0010) + b'OB\0\0' + UNDEFINED
    data += ITEM + struct.pack('<I', len(bot)) + bot
    for f in frags:
        data += ITEM + struct.pack('<I', len(f)) + f
    return data + SEQ_END


JPEG = '1.2.840.10008.1.2.4.50'
soi = b'\xff\xd8' + b'\0' * 14
more = b'\x12\x34' + b'\0' * 14
# five frames in three fragments, no offset table
part10('too-few-fragments.dcm', JPEG, SOP + image_module(4, 4, 5) + fragments(b'', [soi] * 3))
# two frames, four fragments, an offset table that points into a fragment: with start markers
# to go by, and without
part10('bad-offset-table-markers.dcm', JPEG,
       SOP + image_module(4, 4, 2) + fragments(struct.pack('<II', 0, 12), [soi, more, soi, more]))
part10('bad-offset-table.dcm', JPEG,
       SOP + image_module(4, 4, 2) + fragments(struct.pack('<II', 0, 12), [more] * 4))
# two frames, four fragments, no table: the start markers tell (valid)
part10('frames-by-markers.dcm', JPEG,
       SOP + image_module(4, 4, 2) + fragments(b'', [soi, more, soi, more]))
# the same with a Basic Offset Table (valid), and with an Extended one (valid)
part10('frames-by-offset-table.dcm', JPEG,
       SOP + image_module(4, 4, 2) + fragments(struct.pack('<II', 0, 48), [soi, more, soi, more]))
part10('frames-by-extended-table.dcm', JPEG,
       SOP + image_module(4, 4, 2)
       + element(0x7FE0, 0x0001, 'OV', struct.pack('<QQ', 0, 48))
       + element(0x7FE0, 0x0002, 'OV', struct.pack('<QQ', 32, 32))
       + fragments(b'', [more, more, more, more]))
# a fragment sequence that never ends
part10('fragments-unterminated.dcm', JPEG,
       SOP + image_module(4, 4, 1) + fragments(b'', [soi])[:-8] + ITEM + struct.pack('<I', 99))
# not DICOM at all, but named so
with open(os.path.join(out, 'not-dicom.dcm'), 'wb') as f:
    f.write(b'This is a text file that says it is DICOM.\n' * 10)
