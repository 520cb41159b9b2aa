#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""dicomdir-reference.py DICOMDIR [FOLDER] — the record tree pydicom's FileSet reads.

One line per record, depth first: two spaces per level, the record type, then the referenced
file's path relative to FOLDER (default: the DICOMDIR's folder) or '-'. Exit status 77 without
pydicom, 1 when pydicom refuses the file."""
import os, sys, warnings

try:
    import pydicom
    from pydicom.fileset import FileSet
except ImportError as e:
    print('dicomdir-reference.py: %s' % e)
    sys.exit(77)

warnings.simplefilter('ignore')
path = sys.argv[1]
folder = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(path))
try:
    fs = FileSet(pydicom.dcmread(path))
except Exception as e:
    print('pydicom: %s' % e, file=sys.stderr)
    sys.exit(1)


def walk(node, depth):
    for child in node.children:
        where = os.path.relpath(child.instance.path, folder) if child.has_instance else '-'
        print('%s%s %s' % ('  ' * depth, child.record_type, where))
        walk(child, depth + 1)


walk(fs._tree, 0)
