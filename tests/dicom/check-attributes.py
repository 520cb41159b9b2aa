#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-attributes.py DICOM-DUMP FILE|DIR…  — the reader's data set against dcmdump's.

For every file, dcmdump (dcmtk; +L whole values, +U8 text in UTF-8, +uc UN of known attributes
converted, -Un UIDs as numbers) and dicom-dump (what lb_dicom_file_new_for_path() reads) list
every element with its path through sequences. Each element dcmdump lists must be in the
reader's data set with the same VR and value: text split at '\\', numbers as numbers (FL/FD to
the precision dcmdump prints), AT as tags, OB/OW/UN as bytes. The reader must list nothing else.
One exception: a private element that dcmdump leaves as bytes and the reader reads as a
sequence (Implicit VR private sequences) is checked against pydicom's read_sequence() of the
same bytes instead. A file dcmdump refuses is compared with pydicom's reading (top-level
elements, text values), when pydicom reads it. A DIR stands for its *.dcm and DICOMDIR* files.
Prints one line per file; exit status 1 when a file differs, 77 when dcmdump is missing."""
import json, math, os, re, shutil, subprocess, sys
from io import BytesIO

LINE = re.compile(r'(?s)^(?P<indent> *)\((?P<g>[0-9a-f]{4}),(?P<e>[0-9a-f]{4})\) (?P<vr>[A-Z?a-z]{2}) '
                  r'(?P<value>.*?) +# *(?P<len>[0-9u/l]+), *(?P<vm>\d+) (?P<name>.*)$')
TEXT_VRS = {'AE', 'AS', 'CS', 'DA', 'DS', 'DT', 'IS', 'LO', 'LT', 'PN', 'SH', 'ST', 'TM', 'UC',
            'UI', 'UR', 'UT'}
INT_VRS = {'US', 'SS', 'UL', 'SL', 'SV', 'UV'}


def dcmdump(path):
    # bytes, not text=True: universal newlines would turn a CR inside a value into a line end
    out = subprocess.run(['dcmdump', '-q', '+L', '+U8', '+uc', '-Un', path], capture_output=True)
    if out.returncode != 0:
        return None
    elements = {}
    stack = []  # (indent, path prefix) of the open sequences and items
    counters = {}
    in_meta = False
    lines = []
    for line in out.stdout.decode('utf-8', 'surrogateescape').split('\n'):
        # a text value with line breaks (UT, LT) goes on over several lines
        if lines and not re.match(r'^ *\([0-9a-f]{4},[0-9a-f]{4}\) |^#|^$', line):
            lines[-1] += '\n' + line
        else:
            lines.append(line)
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        indent = len(m['indent'])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        prefix = stack[-1][1] if stack else ''
        tag = ('%s,%s' % (m['g'], m['e'])).upper()
        if tag == 'FFFE,E000':
            n = counters.get(prefix, 0)
            counters[prefix] = n + 1
            stack.append((indent, '%s[%d]/' % (prefix[:-1], n)))
            continue
        if tag.startswith('FFFE,'):
            continue
        path = prefix + tag
        elements[path] = (m['vr'], m['value'])
        if m['vr'] == 'SQ':
            stack.append((indent, path + '/'))
    return elements


def ours(dump, path):
    out = subprocess.run([dump, path], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    elements = {}
    for line in out.stdout.splitlines():
        obj = json.loads(line)
        if 'path' in obj:
            elements[obj['path']] = obj
    return elements, None


def text_values(value):
    if value == '(no value available)':
        return []
    if value.startswith('[') and value.endswith(']'):
        return value[1:-1].split('\\')
    return value.split('\\')


def same_value(vr, theirs, mine):
    if vr in TEXT_VRS:
        want = [v.strip(' \x00') if vr not in ('LT', 'ST', 'UT') else v.rstrip(' \x00')
                for v in text_values(theirs)]
        if vr == 'PN':  # empty trailing component groups are absent ones (the JSON model's)
            want = [v.rstrip('= ') for v in want]
        got = mine.get('values', [])
        if vr in ('LT', 'ST', 'UT', 'UR'):
            want, got = ['\\'.join(want)], ['\\'.join(got)]
        while want and want[-1] == '' and len(want) > len(got):
            want.pop()
        return want == got or (not any(want) and not any(got))
    if vr in INT_VRS:
        want = [int(v) for v in text_values(theirs)]
        return want == [int(v) for v in mine.get('values', [])]
    if vr in ('FL', 'FD'):
        want = [float(v) for v in text_values(theirs)]
        got = [float(v) for v in mine.get('values', [])]
        return len(want) == len(got) and all(
            (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-30)
            for a, b in zip(want, got))
    if vr == 'AT':
        want = [v.strip('()').replace(',', '').upper() for v in text_values(theirs)]
        return want == mine.get('values', [])
    if vr in ('OB', 'UN', '??'):
        want = '' if theirs == '(no value available)' else ''.join(text_values(theirs)).lower()
        got = mine.get('bytes', '')
        # dcmtk pads a value of odd length with a zero byte when it reads it
        return want == got or (len(got) % 4 == 2 and want == got + '00')
    if vr == 'OW':
        if theirs == '(no value available)':
            return mine.get('bytes', '') == ''
        words = text_values(theirs)
        want = ''.join(w[2:4] + w[0:2] for w in words)  # words → little endian bytes
        return want.lower() == mine.get('bytes', '')
    return 'bytes' in mine  # OF, OD, OL, OV: present as bytes


def private_sequence_matches(path_file, tag_path, mine, elements):
    """The reader made a sequence of bytes dcmdump kept: parse them with pydicom instead."""
    try:
        import pydicom
        from pydicom.filereader import read_sequence
        from pydicom.tag import Tag
    except ImportError:
        return False
    ds = pydicom.dcmread(path_file)
    top = tag_path.split('/')[0]
    if '[' in tag_path:
        return True  # nested: covered by its top-level ancestor
    g, e = (int(x, 16) for x in top.split(','))
    raw = ds[Tag(g, e)].value
    seq = read_sequence(BytesIO(raw), True, True, len(raw), ['iso8859'])
    if len(seq) != mine['items']:
        return False
    for i, item in enumerate(seq):
        theirs = {'%04X,%04X' % (el.tag.group, el.tag.element) for el in item}
        prefix = '%s[%d]/' % (tag_path, i)
        mine_tags = {p[len(prefix):] for p in elements if p.startswith(prefix) and
                     '/' not in p[len(prefix):]}
        if theirs != mine_tags:
            return False
    return True


def pydicom_matches(path, mine):
    """For files dcmdump refuses: the top-level elements and text values pydicom reads."""
    try:
        import pydicom
    except ImportError:
        return None
    try:
        ds = pydicom.dcmread(path, force=True)
    except Exception:
        return None
    problems = []
    for el in list(ds.file_meta) + list(ds):
        p = '%04X,%04X' % (el.tag.group, el.tag.element)
        if p == '7FE0,0010':
            continue
        m = mine.get(p)
        if m is None:
            problems.append('%s missing' % p)
        elif el.tag.is_private and m['vr'] == 'UN':
            continue  # pydicom knows some private dictionaries; the reader keeps bytes
        elif el.VR in TEXT_VRS and el.VR not in ('LT', 'ST', 'UT'):
            want = [str(v).strip() for v in (el.value if el.VM > 1 else [el.value])] if el.VM else []
            if want != m.get('values', []):
                problems.append('%s: pydicom %s, the reader %s' % (p, want, m.get('values')))
    tops = {p for p in mine if '/' not in p and '[' not in p}
    theirs = {'%04X,%04X' % (el.tag.group, el.tag.element) for el in list(ds.file_meta) + list(ds)}
    problems += ['%s: only the reader has it' % p for p in tops - theirs]
    return problems


def main():
    if shutil.which('dcmdump') is None:
        print('dcmdump (dcmtk) is not installed')
        return 77
    dump, files = sys.argv[1], []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg)
                            if f.endswith('.dcm') or f.startswith('DICOMDIR'))
        else:
            files.append(arg)
    failed = 0
    for path in files:
        theirs = dcmdump(path)
        mine, err = ours(dump, path)
        if theirs is None:
            if mine is None:
                print('ok %s: refused by dcmdump and the reader: %s' % (path, err))
                continue
            problems = pydicom_matches(path, mine)
            if problems is None:
                print('ok %s: refused by dcmdump and pydicom; the reader reads it' % path)
            elif problems:
                failed += 1
                print('FAIL %s (dcmdump refuses it): %d differences from pydicom' %
                      (path, len(problems)))
                for pr in problems[:10]:
                    print('   ', pr)
            else:
                print('ok %s: dcmdump refuses it, pydicom agrees with the reader' % path)
            continue
        if mine is None:
            print('FAIL %s: dcmdump reads it, the reader does not: %s' % (path, err))
            failed += 1
            continue
        problems = []
        skip = []
        for p, (vr, value) in theirs.items():
            if any(p.startswith(s) for s in skip):
                continue
            if p == '7FE0,0010':
                continue  # the pixel data is not in the data set: check-pixels covers it
            if p.endswith('0008,0005') and p not in mine:
                continue  # +U8 adds SpecificCharacterSet ISO_IR 192
            m = mine.get(p)
            if m is None:
                problems.append('%s %s missing' % (p, vr))
                continue
            if vr == '??' and m['vr'] == 'SQ':
                if not private_sequence_matches(path, p, m, mine):
                    problems.append('%s: read as a sequence pydicom does not find' % p)
                skip.append(p + '[')
                continue
            if vr == 'SQ':
                if m['vr'] != 'SQ':
                    problems.append('%s: SQ, the reader has %s' % (p, m['vr']))
                continue
            if vr == 'up':
                vr = 'UL'  # dcmtk's name for a UL that is a file offset (DICOMDIR)
            want_vr = 'UN' if vr == '??' else vr
            if m['vr'] != want_vr:
                problems.append('%s: VR %s, the reader has %s' % (p, vr, m['vr']))
                continue
            if p.endswith('0008,0005') and value == '[ISO_IR 192]':
                continue  # +U8 rewrote the character set
            if not same_value(vr, value, m):
                problems.append('%s %s: dcmdump %s, the reader %s' %
                                (p, vr, value[:80], json.dumps(m.get('values', m.get('bytes')))[:80]))
        for p in mine:
            if p not in theirs and not any(p.startswith(s) for s in skip):
                problems.append('%s: only the reader has it' % p)
        if problems:
            failed += 1
            print('FAIL %s: %d differences' % (path, len(problems)))
            for pr in problems[:10]:
                print('   ', pr)
        else:
            print('ok %s: %d elements' % (path, len(theirs)))
    return 1 if failed else 0


sys.exit(main())
