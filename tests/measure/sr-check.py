#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""sr-check.py COMMAND … — the independent side of test-measure-sr.sh: pydicom reads the
DICOM SR Lightbox wrote, numpy's phantom reference (measure-reference.py) says what its values
must be, and pydicom writes a TID 1500 report the way other tools do.

  args REF.json CASE            the `lightbox-cli measure` options for phantom CASE (0, 1)
  uids FILE.dcm                 StudyInstanceUID SeriesInstanceUID SOPInstanceUID
  check-sr SR.dcm IMAGE.dcm REF.json CASE MEASURED.json
                                the SR against the image, the reference and what measure printed
  compare A.json B.json         the measurements of two runs (measure --json, measurements
                                --json's first report) are the same: tools, points, values
  foreign OUT.dcm IMAGE.dcm     writes a TID 1500 SR as another tool would (dcmjs-style NUM →
                                INFERRED FROM SCOORD, TID 1419 Derivation, SRT codes, CIRCLE, a
                                rotated ELLIPSE, a rectangle outline starting down a column)
  malformed OUT.dcm IMAGE.dcm   the same report (series 98) with its first SCOORD broken: three
                                GraphicData values, which are no (column, row) points
  check-foreign LISTED.json     `measurements --json` read that report back as it should
  reports DICOMWEB_URL STUDY [DRAWN.json]
                                the study's SR instances as pydicom reads them from WADO-RS
                                (curl): JSON [{series, series_number, sop, md5, scoords,
                                matches}] by SeriesNumber; with DRAWN.json ({"sop": the image's
                                SOPInstanceUID, "measurements": [{tool, points}]}) "matches"
                                says whether the SCOORDs are those points on that image, in order ("sops": one image
                                per measurement instead)
  multiframe OUT.dcm            writes a 3-frame object (frame k holds noise around 100 k)
  check-frame SR.dcm IMAGE.dcm FRAME X0 Y0 X1 Y1
                                the SR's rectangle on frame FRAME (from 1): ReferencedFrameNumber
                                and numpy's mean, SD, min and max of that frame's pixels

Every check prints "PASS text" or "FAIL text"; other lines start with '#'. Exit status 77
without pydicom/numpy."""
import email
import hashlib
import io
import json
import math
import subprocess
import sys

try:
    import numpy as np
    import pydicom
    from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
    from pydicom.sequence import Sequence
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid
except ImportError as e:
    print('# sr-check.py: %s' % e)
    sys.exit(77)

COMPREHENSIVE_SR = '1.2.840.10008.5.1.4.1.1.88.33'


def check(ok, text):
    print(('PASS ' if ok else 'FAIL ') + text)
    return ok


def close(a, b, rel=1e-9, abs_=1e-9):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def f32(v):
    return float(np.float32(v))


# ---- the measurements of a phantom ---------------------------------------------------------

def case_points(ref):
    """tool → points (pixel coordinates), in the order `measure` lists the tools."""
    m = ref['markers']
    a, b, c = ([m[k][0] + 0.5, m[k][1] + 0.5] for k in ('3001', '3002', '3003'))
    (cx, cy), (rx, ry) = ref['disc']['centre_px'], ref['disc']['radius_px']
    return [
        ('length', [a, b]),
        ('angle', [a, b, c]),
        ('polyline', [a, b, c]),
        ('rectangle', ref['rectangle']['corners_px']),
        ('ellipse', [[cx - rx, cy - ry], [cx + rx, cy + ry]]),
        ('freehand', ref['pentagon']['points_px']),
        ('probe', [[ref['probe']['pixel'][0] + 0.5, ref['probe']['pixel'][1] + 0.5]]),
        ('arrow', [[10.25, 12.5], [30.75, 40.5]]),
    ]


def cmd_args(ref_path, case):
    ref = json.load(open(ref_path))[int(case)]
    for tool, pts in case_points(ref):
        arg = ','.join(repr(v) for p in pts for v in p)
        if tool == 'arrow':
            arg += ':lesion, see report'
        print('--%s=%s' % (tool, arg))


def cmd_uids(path):
    ds = pydicom.dcmread(path)
    print(ds.StudyInstanceUID, ds.SeriesInstanceUID, ds.SOPInstanceUID)


# ---- reading an SR with pydicom --------------------------------------------------------------

def code(item, seq='ConceptNameCodeSequence'):
    if seq not in item or len(item[seq].value) == 0:
        return None
    c = item[seq][0]
    return (str(c.CodeValue), str(c.CodingSchemeDesignator))


def children(item):
    return list(item.ContentSequence) if 'ContentSequence' in item else []


def groups(sr):
    out = []
    for child in children(sr):
        if code(child) == ('126010', 'DCM'):
            out += [g for g in children(child) if code(g) == ('125007', 'DCM')]
    return out


def scoords(group):
    """(SCOORD item, [NUM items it belongs to]) of a group."""
    found = []
    nums = [c for c in children(group) if c.ValueType == 'NUM']
    for c in children(group):
        if c.ValueType == 'SCOORD':
            found.append((c, nums))
        elif c.ValueType == 'NUM':
            found += [(s, [c]) for s in children(c) if s.ValueType == 'SCOORD']
    return found


def num_value(item):
    mv = item.MeasuredValueSequence[0]
    unit = mv.MeasurementUnitsCodeSequence[0]
    return float(mv.FloatingPointValue), float(mv.NumericValue), str(unit.CodeValue)


def expected_points(tool, pts):
    """The SCOORD Lightbox must write for a tool's points (PS3.3 C.18.6.1.1)."""
    p = [[f32(x), f32(y)] for x, y in pts]
    if tool == 'rectangle':
        (x0, y0), (x1, y1) = p
        return 'POLYLINE', [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]
    if tool == 'ellipse':
        (x0, y0), (x1, y1) = p
        cx, cy = f32((x0 + x1) / 2), f32((y0 + y1) / 2)
        # the major axis first: along the row when the box is wider than tall
        if abs(x1 - x0) >= abs(y1 - y0):
            return 'ELLIPSE', [[x0, cy], [x1, cy], [cx, y0], [cx, y1]]
        return 'ELLIPSE', [[cx, y0], [cx, y1], [x0, cy], [x1, cy]]
    if tool == 'freehand':
        return 'POLYLINE', p + [p[0]]
    if tool == 'probe':
        return 'POINT', p
    return 'POLYLINE', p


def cmd_check_sr(sr_path, image_path, ref_path, case, measured_path):
    sr = pydicom.dcmread(sr_path)
    img = pydicom.dcmread(image_path)
    ref = json.load(open(ref_path))[int(case)]
    measured = json.load(open(measured_path))['measurements']
    ok = True
    ok &= check(sr.SOPClassUID == COMPREHENSIVE_SR, 'SOP class is Comprehensive SR')
    ok &= check(sr.Modality == 'SR', 'Modality SR')
    ok &= check(sr.StudyInstanceUID == img.StudyInstanceUID, 'the image\'s study')
    ok &= check(sr.SeriesInstanceUID != img.SeriesInstanceUID, 'a series of its own')
    ok &= check(str(sr.PatientID) == str(img.PatientID), 'the image\'s patient')
    ev = sr.CurrentRequestedProcedureEvidenceSequence
    refs = [(s.SeriesInstanceUID, r.ReferencedSOPInstanceUID, r.ReferencedSOPClassUID)
            for st in ev for s in st.ReferencedSeriesSequence for r in s.ReferencedSOPSequence]
    ok &= check(refs == [(img.SeriesInstanceUID, img.SOPInstanceUID, img.SOPClassUID)],
                'CurrentRequestedProcedureEvidenceSequence names the image')
    ok &= check(code(sr) == ('126000', 'DCM') and sr.ContentTemplateSequence[0].TemplateIdentifier
                == '1500', 'TID 1500 Imaging Measurement Report')
    gs = groups(sr)
    tools = case_points(ref)
    ok &= check(len(gs) == len(tools), '%d measurement groups' % len(tools))
    for (tool, pts), group, got in zip(tools, gs, measured):
        ctx = {code(c): c for c in children(group)}
        ok &= check(('112040', 'DCM') in ctx and ('112039', 'DCM') in ctx,
                    '%s: tracking identifier and UID' % tool)
        sc = scoords(group)
        if not check(len(sc) == 1, '%s: one SCOORD' % tool):
            ok = False
            continue
        item, nums = sc[0]
        want_type, want = expected_points(tool, pts)
        data = [float(v) for v in item.GraphicData]
        got_pts = [[data[i], data[i + 1]] for i in range(0, len(data), 2)]
        ok &= check(item.GraphicType == want_type and got_pts == want,
                    '%s: SCOORD %s %s equals the points given' % (tool, item.GraphicType, got_pts[:2]))
        image = [c for c in children(item) if c.ValueType == 'IMAGE']
        ok &= check(len(image) == 1 and image[0].RelationshipType == 'SELECTED FROM'
                    and image[0].ReferencedSOPSequence[0].ReferencedSOPInstanceUID
                    == img.SOPInstanceUID and 'ReferencedFrameNumber'
                    not in image[0].ReferencedSOPSequence[0],
                    '%s: SELECTED FROM the image (no frame: single-frame)' % tool)
        values = {code(n): num_value(n) for n in nums}
        for fp, ds, unit in values.values():
            ok &= check(close(fp, ds, 1e-11, 1e-13),
                        '%s: NumericValue %r agrees with FloatingPointValue %r' % (tool, ds, fp))
        # what measure printed is what the SR says
        for name, key in (('length', ('410668003', 'SCT')), ('angle', ('1483009', 'SCT')),
                          ('area', ('42798000', 'SCT')), ('mean', ('373098007', 'SCT')),
                          ('sd', ('386136009', 'SCT')), ('min', ('255605001', 'SCT')),
                          ('max', ('56851009', 'SCT'))):
            if name in got.get('values', {}):
                ok &= check(key in values and values[key][0] == got['values'][name]['value'],
                            '%s: SR %s equals what measure printed (%r)'
                            % (tool, name, got['values'][name]['value']))
        # … and numpy's independent values
        mm = {'length': ref['length_mm'], 'angle': ref['angle_deg'], 'polyline': ref['polyline_mm']}
        half_px = 0.5 * max(ref['row_mm'], ref['column_mm'])
        if tool in ('length', 'polyline'):
            ok &= check(abs(values[('410668003', 'SCT')][0] - mm[tool]) <= half_px
                        and values[('410668003', 'SCT')][2] == 'mm',
                        '%s: %.4f mm, numpy %.4f mm' % (tool, values[('410668003', 'SCT')][0], mm[tool]))
        if tool == 'angle':
            ok &= check(abs(values[('1483009', 'SCT')][0] - mm['angle']) < 0.5
                        and values[('1483009', 'SCT')][2] == 'deg',
                        'angle: %.4f deg, numpy %.4f deg' % (values[('1483009', 'SCT')][0], mm['angle']))
        region = {'ellipse': 'disc', 'freehand': 'pentagon', 'rectangle': 'rectangle'}.get(tool)
        if region:
            r = ref[region]
            area = values[('42798000', 'SCT')]
            tol = 0.01 if tool == 'ellipse' else 1e-6
            ok &= check(abs(area[0] - r['area_mm2']) <= tol * r['area_mm2'] and area[2] == 'mm2',
                        '%s: area %.3f mm², numpy %.3f mm²' % (tool, area[0], r['area_mm2']))
            for name, key in (('mean', '373098007'), ('sd', '386136009'), ('min', '255605001'),
                              ('max', '56851009')):
                v = values[(key, 'SCT')]
                ok &= check(close(v[0], r[name], 1e-9, 1e-9) and v[2] == "[hnsf'U]",
                            '%s: %s %.6f HU, numpy %.6f' % (tool, name, v[0], r[name]))
        if tool == 'probe':
            v = values[('112031', 'DCM')]
            ok &= check(v[0] == ref['probe']['value'] and v[2] == "[hnsf'U]",
                        'probe: %r HU, numpy %r' % (v[0], ref['probe']['value']))
        if tool == 'arrow':
            ok &= check(str(ctx.get(('121106', 'DCM'), Dataset()).get('TextValue', ''))
                        == 'lesion, see report', 'arrow: its label as a Comment')
    return ok


def cmd_compare(a_path, b_path):
    def first(doc):
        return doc['reports'][0]['measurements'] if 'reports' in doc else doc
    a, b = first(json.load(open(a_path))), first(json.load(open(b_path)))
    ma, mb = a['measurements'], b['measurements']
    ok = check(len(ma) == len(mb), '%d measurements both times' % len(ma))
    for x, y in zip(ma, mb):
        ok &= check(x['tool'] == y['tool'] and x['points'] == y['points']
                    and x.get('text') == y.get('text'),
                    '%s: the same points%s' % (x['tool'], ' and label' if x.get('text') else ''))
        ok &= check(x.get('values') == y.get('values'),
                    '%s: the same values %s' % (x['tool'], sorted(
                        (k, v['value']) for k, v in x.get('values', {}).items())))
    ok &= check(a['spacing'] == b['spacing'], 'the same spacing %s' % a['spacing'])
    return ok


# ---- a report from another tool ----------------------------------------------------------------

def code_item(value, scheme, meaning):
    c = Dataset()
    c.CodeValue, c.CodingSchemeDesignator, c.CodeMeaning = value, scheme, meaning
    return c


def content(rel, vtype, concept=None, **kw):
    it = Dataset()
    if rel:
        it.RelationshipType = rel
    it.ValueType = vtype
    if concept:
        it.ConceptNameCodeSequence = Sequence([code_item(*concept)])
    for k, v in kw.items():
        setattr(it, k, v)
    return it


def num(rel, concept, value, unit, derivation=None):
    mv = Dataset()
    mv.NumericValue = '%.6g' % value
    mv.MeasurementUnitsCodeSequence = Sequence([code_item(*unit)])
    it = content(rel, 'NUM', concept, MeasuredValueSequence=Sequence([mv]))
    if derivation:
        it.ContentSequence = Sequence([content('HAS CONCEPT MOD', 'CODE', ('121401', 'DCM', 'Derivation'),
                                               ConceptCodeSequence=Sequence([code_item(*derivation)]))])
    return it


def scoord(rel, concept, gtype, pts, img):
    ref = Dataset()
    ref.ReferencedSOPClassUID, ref.ReferencedSOPInstanceUID = img.SOPClassUID, img.SOPInstanceUID
    image = content('SELECTED FROM', 'IMAGE', ReferencedSOPSequence=Sequence([ref]))
    it = content(rel, 'SCOORD', concept, GraphicType=gtype,
                 GraphicData=[float(v) for p in pts for v in p])
    it.ContentSequence = Sequence([image])
    return it


def group(n, *items):
    g = content('CONTAINS', 'CONTAINER', ('125007', 'DCM', 'Measurement Group'),
                ContinuityOfContent='SEPARATE')
    g.ContentSequence = Sequence([
        content('HAS OBS CONTEXT', 'TEXT', ('112039', 'DCM', 'Tracking Identifier'),
                TextValue='other tool %d' % n),
        content('HAS OBS CONTEXT', 'UIDREF', ('112040', 'DCM', 'Tracking Unique Identifier'),
                UID=generate_uid())] + list(items))
    return g


FOREIGN = {
    'length': [[20.0, 30.0], [60.5, 33.25]],
    'circle': [[80.0, 80.0], [80.0, 95.0]],              # centre, a point on the circle
    'rotated': [[40.0, 40.0], [60.0, 60.0], [45.0, 55.0], [55.0, 45.0]],
    'rect': [[10.0, 100.0], [10.0, 120.0], [30.0, 120.0], [30.0, 100.0], [10.0, 100.0]],
}


def cmd_foreign(out, image_path):
    img = pydicom.dcmread(image_path)
    mm = ('mm', 'UCUM', 'millimeter')
    region = ('111030', 'DCM', 'Image Region')
    length = num('CONTAINS', ('G-D7FE', 'SRT', 'Length'), 28.4, mm)
    length.ContentSequence = Sequence([scoord('INFERRED FROM', None, 'POLYLINE', FOREIGN['length'], img)])
    groups_ = [
        group(1, length),
        group(2, scoord('CONTAINS', region, 'CIRCLE', FOREIGN['circle'], img),
              num('CONTAINS', ('112031', 'DCM', 'Attenuation Coefficient'), 41.5,
                  ("[hnsf'U]", 'UCUM', 'Hounsfield unit'), ('R-00317', 'SRT', 'Mean'))),
        group(3, scoord('CONTAINS', region, 'ELLIPSE', FOREIGN['rotated'], img)),
        group(4, scoord('CONTAINS', region, 'POLYLINE', FOREIGN['rect'], img)),
    ]
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = COMPREHENSIVE_SR, generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.SOPClassUID, ds.SOPInstanceUID = COMPREHENSIVE_SR, meta.MediaStorageSOPInstanceUID
    ds.Modality = 'SR'
    ds.PatientName, ds.PatientID = img.PatientName, img.PatientID
    ds.StudyInstanceUID, ds.SeriesInstanceUID = img.StudyInstanceUID, generate_uid()
    ds.SeriesNumber, ds.InstanceNumber = 99, 1
    ds.CompletionFlag, ds.VerificationFlag = 'COMPLETE', 'UNVERIFIED'
    ds.ValueType, ds.ContinuityOfContent = 'CONTAINER', 'SEPARATE'
    ds.ConceptNameCodeSequence = Sequence([code_item('126000', 'DCM', 'Imaging Measurement Report')])
    tmpl = Dataset()
    tmpl.MappingResource, tmpl.TemplateIdentifier = 'DCMR', '1500'
    ds.ContentTemplateSequence = Sequence([tmpl])
    meas = content('CONTAINS', 'CONTAINER', ('126010', 'DCM', 'Imaging Measurements'),
                   ContinuityOfContent='SEPARATE')
    meas.ContentSequence = Sequence(groups_)
    ds.ContentSequence = Sequence([meas])
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.save_as(out, write_like_original=False)


def cmd_malformed(out, image_path):
    cmd_foreign(out, image_path)
    ds = pydicom.dcmread(out)
    ds.SeriesInstanceUID, ds.SeriesNumber = generate_uid(), 98
    ds.SOPInstanceUID = ds.file_meta.MediaStorageSOPInstanceUID = generate_uid()
    first = scoords(groups(ds)[0])[0][0]
    first.GraphicData = [1.0, 2.0, 3.0]
    ds.save_as(out, write_like_original=False)


def cmd_check_foreign(listed_path):
    doc = json.load(open(listed_path))
    reps = [r for r in doc['reports'] if r.get('series_number') == '99']
    if not check(len(reps) == 1, 'the other tool\'s report is listed'):
        return False
    ms = reps[0]['measurements']['measurements']
    ok = check([m['tool'] for m in ms] == ['length', 'ellipse', 'freehand', 'rectangle'],
               'tools %s: length, ellipse (CIRCLE), freehand (rotated ELLIPSE), rectangle'
               % [m['tool'] for m in ms])
    if not ok:
        return False
    ok &= check(ms[0]['points'] == FOREIGN['length'], 'length: its points')
    (cx, cy), (px, py) = FOREIGN['circle']
    r = math.hypot(px - cx, py - cy)
    ok &= check(ms[1]['points'] == [[cx - r, cy - r], [cx + r, cy + r]],
                'CIRCLE: the box around it %s' % ms[1]['points'])
    pts = np.array(ms[2]['points'])
    a, b, c, d = (np.array(p) for p in FOREIGN['rotated'])
    centre, u, v = (a + b) / 2, (b - a) / 2, (d - c) / 2
    # every outline point lies on the ellipse: its coordinates in the axes' frame have norm 1
    m = np.column_stack([u, v])
    coef = np.linalg.solve(m, (pts - centre).T)
    ok &= check(len(pts) == 64 and np.allclose(np.hypot(coef[0], coef[1]), 1, atol=1e-9),
                'rotated ELLIPSE: 64 points on it')
    ok &= check(ms[3]['points'] == [[10.0, 100.0], [30.0, 120.0]],
                'rectangle outline from a column: corners %s' % ms[3]['points'])
    return ok


MULTIFRAME_SC = '1.2.840.10008.5.1.4.1.1.7.3'


def cmd_multiframe(out):
    rng = np.random.default_rng(29)
    frames = np.stack([100 * k + rng.integers(-9, 10, size=(40, 50)) for k in (1, 2, 3)])
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID = MULTIFRAME_SC, generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\0' * 128)
    ds.SOPClassUID, ds.SOPInstanceUID = MULTIFRAME_SC, meta.MediaStorageSOPInstanceUID
    ds.Modality, ds.ConversionType = 'OT', 'WSD'
    ds.PatientName, ds.PatientID = 'Phantom^Frames', 'PH-27F'
    ds.StudyInstanceUID, ds.SeriesInstanceUID = generate_uid(), generate_uid()
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, 'MONOCHROME2'
    ds.NumberOfFrames = 3
    ds.Rows, ds.Columns = 40, 50
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 0
    ds.PixelSpacing = [0.5, 0.5]
    ds.PixelData = frames.astype('<u2').tobytes()
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.save_as(out, write_like_original=False)


def cmd_check_frame(sr_path, image_path, frame, x0, y0, x1, y1):
    sr, img = pydicom.dcmread(sr_path), pydicom.dcmread(image_path)
    frame, (x0, y0, x1, y1) = int(frame), (float(v) for v in (x0, y0, x1, y1))
    ok = True
    gs = groups(sr)
    if not check(len(gs) == 1 and len(scoords(gs[0])) == 1, 'one measurement group, one SCOORD'):
        return False
    item, nums = scoords(gs[0])[0]
    ref = [c for c in children(item) if c.ValueType == 'IMAGE'][0].ReferencedSOPSequence[0]
    ok &= check(ref.ReferencedSOPInstanceUID == img.SOPInstanceUID
                and int(ref.get('ReferencedFrameNumber', 0)) == frame,
                'SCOORD SELECTED FROM frame %s of the image' % ref.get('ReferencedFrameNumber'))
    lib = [c for c in children(sr) if code(c) == ('111028', 'DCM')][0]
    entry = children(children(lib)[0])[0].ReferencedSOPSequence[0]
    ok &= check(int(entry.get('ReferencedFrameNumber', 0)) == frame,
                'the Image Library names frame %d' % frame)
    pixels = img.pixel_array[frame - 1].astype(float)
    rr, cc = np.meshgrid(np.arange(pixels.shape[0]), np.arange(pixels.shape[1]), indexing='ij')
    xs, ys = cc + 0.5, rr + 0.5
    inside = (xs >= min(x0, x1)) & (xs <= max(x0, x1)) & (ys >= min(y0, y1)) & (ys <= max(y0, y1))
    v = pixels[inside]
    values = {code(n): num_value(n) for n in nums}
    for name, key, want in (('mean', '373098007', v.mean()), ('sd', '386136009', v.std()),
                            ('min', '255605001', v.min()), ('max', '56851009', v.max())):
        got = values[(key, 'SCT')]
        ok &= check(close(got[0], float(want)) and got[2] == '1',
                    'frame %d: %s %.6f (unit %s), numpy %.6f' % (frame, name, got[0], got[2], want))
    return ok


# ---- the reports a DICOMweb server holds ---------------------------------------------------------

def curl(url, accept):
    cmd = ['curl', '-sf', '--noproxy', '*', '-H', 'Accept: ' + accept, '-D', '-', url]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    head, _, body = out.partition(b'\r\n\r\n')
    ctype = [l.split(b':', 1)[1].strip() for l in head.split(b'\r\n')
             if l.lower().startswith(b'content-type:')][0]
    return ctype.decode(), body


def wado_instance(url):
    """The Part 10 bytes of an instance from WADO-RS (PS3.18 10.4, multipart/related)."""
    ctype, body = curl(url, 'multipart/related; type="application/dicom"')
    msg = email.message_from_bytes(b'Content-Type: ' + ctype.encode() + b'\r\n\r\n' + body)
    parts = [p.get_payload(decode=True) for p in msg.walk() if not p.is_multipart()]
    if len(parts) != 1:
        raise SystemExit('%s: %d parts' % (url, len(parts)))
    return parts[0]


def cmd_reports(base, study, drawn_path=None):
    drawn = json.load(open(drawn_path)) if drawn_path else None
    _, body = curl('%s/studies/%s/series?Modality=SR' % (base, study), 'application/dicom+json')
    out = []
    for series in json.loads(body or b'[]'):
        se = series['0020000E']['Value'][0]
        _, body = curl('%s/studies/%s/series/%s/instances' % (base, study, se),
                       'application/dicom+json')
        for inst in json.loads(body):
            sop = inst['00080018']['Value'][0]
            data = wado_instance('%s/studies/%s/series/%s/instances/%s' % (base, study, se, sop))
            sr = pydicom.dcmread(io.BytesIO(data))
            found = []
            for g in groups(sr):
                for item, _ in scoords(g)[:1]:
                    refs = [c for c in children(item) if c.ValueType == 'IMAGE']
                    found.append({'type': str(item.GraphicType),
                                  'points': [float(v) for v in item.GraphicData],
                                  'ref': str(refs[0].ReferencedSOPSequence[0]
                                             .ReferencedSOPInstanceUID) if refs else None})
            entry = {'series': se, 'series_number': int(sr.SeriesNumber), 'sop': sop,
                     'md5': hashlib.md5(data).hexdigest(), 'scoords': found}
            if drawn is not None:
                want = [expected_points(m['tool'], m['points']) for m in drawn['measurements']]
                sops = drawn.get('sops') or [drawn['sop']] * len(want)
                entry['matches'] = len(want) == len(found) and all(
                    f['type'] == t and f['ref'] == ref
                    and f['points'] == [v for xy in pts for v in xy]
                    for f, (t, pts), ref in zip(found, want, sops))
            out.append(entry)
    out.sort(key=lambda e: e['series_number'])
    print(json.dumps(out))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    fn = {'args': cmd_args, 'uids': cmd_uids, 'check-sr': cmd_check_sr, 'compare': cmd_compare,
          'foreign': cmd_foreign, 'check-foreign': cmd_check_foreign,
          'multiframe': cmd_multiframe, 'reports': cmd_reports,
          'malformed': cmd_malformed, 'check-frame': cmd_check_frame}[cmd]
    result = fn(*args)
    sys.exit(0 if result in (None, True) else 1)


main()
