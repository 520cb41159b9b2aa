#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print the Debian mirrors this machine's apt sources already use, for trixie-chroot.sh.

Reads /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line format, sources.list(5))
and /etc/apt/sources.list.d/*.sources (deb822 format). Only enabled binary ("deb") entries count,
and only Debian archive entries: those whose suite is a Debian release name (a codename, or
stable/testing/...), optionally with -updates/-security/-backports. Third-party repositories
name other suites (for example "nodistro") and are ignored.

Output, one per line:   main URI FILE      the archive (suite without a -security part)
                        security URI FILE  the security archive (suite ending in -security)
Exits 1 with a message when no enabled Debian archive entry exists.
"""
import glob
import os
import re
import sys

ROOT = os.environ.get("APT_ETC", "/etc/apt")
RELEASES = {"buster", "bullseye", "bookworm", "trixie", "forky", "duke", "sid",
            "oldoldstable", "oldstable", "stable", "testing", "unstable"}
SUITE = re.compile(r"^([a-z]+)(?:-(updates|security|backports|proposed-updates))?$")


def one_line(path):
    """Entries of a one-line-style file: (types, uris, suites, enabled)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            line = re.sub(r"\[[^\]]*\]", " ", line)  # [arch=... signed-by=...] options
            words = line.split()
            if len(words) < 3:
                continue
            yield [words[0]], [words[1]], [words[2]], True


def deb822(path):
    """Stanzas of a deb822 .sources file: (types, uris, suites, enabled)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for stanza in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.startswith("#"):
                continue
            if line[:1] in (" ", "\t") and key:  # continuation line (Signed-By blocks)
                fields[key] += " " + line.strip()
                continue
            if ":" in line:
                key, value = line.split(":", 1)
                key = key.strip().lower()
                fields[key] = value.strip()
        if "uris" not in fields:
            continue
        enabled = fields.get("enabled", "yes").lower() not in ("no", "false", "0")
        yield (fields.get("types", "").split(), fields["uris"].split(),
               fields.get("suites", "").split(), enabled)


def main():
    files = []
    if os.path.exists(os.path.join(ROOT, "sources.list")):
        files.append(os.path.join(ROOT, "sources.list"))
    files += sorted(glob.glob(os.path.join(ROOT, "sources.list.d", "*.list")))
    files += sorted(glob.glob(os.path.join(ROOT, "sources.list.d", "*.sources")))
    found = {}
    for path in files:
        entries = deb822(path) if path.endswith(".sources") else one_line(path)
        for types, uris, suites, enabled in entries:
            if not enabled or "deb" not in types:
                continue
            for suite in suites:
                m = SUITE.match(suite.rstrip("/"))
                if not m or m.group(1) not in RELEASES:
                    continue
                kind = "security" if m.group(2) == "security" else "main"
                for uri in uris:
                    found.setdefault(kind, (uri.rstrip("/"), path))
    if "main" not in found:
        print(f"debian-mirrors.py: no enabled Debian archive entry in {', '.join(files) or ROOT}",
              file=sys.stderr)
        return 1
    for kind in ("main", "security"):
        if kind in found:
            print(kind, *found[kind])
    return 0


if __name__ == "__main__":
    sys.exit(main())
