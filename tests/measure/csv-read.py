#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""csv-read.py — reads CSV on stdin with Python's csv module (RFC 4180 quoting) in strict
mode and prints the rows as a JSON array of arrays of strings: an independent reader for the
measurement list Lightbox exports."""
import csv
import io
import json
import sys

data = sys.stdin.buffer.read().decode('utf-8')
# every line must end in CRLF, as RFC 4180 asks
assert data.endswith('\r\n')
rows = list(csv.reader(io.StringIO(data, newline=''), strict=True))
json.dump(rows, sys.stdout)
