#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""po/POTFILES.in is complete, sorted and true: every source file under src/
that marks a string for translation (_(), N_(), C_(), NC_(), ngettext,
translatable="yes") is listed, every data file with translatable text is
listed, and every listed file exists. Output is TAP."""

import os
import re
import sys

MARKERS = re.compile(
    r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|Q_|g_dngettext|g_dpgettext2?|ngettext)\s*\('
    r'|translatable\s*=\s*"yes"'
)
SOURCE_SUFFIXES = (".c", ".h", ".ui", ".blp")
# Data files whose strings are translated through po/ (merge_file, gettext-domain).
DATA_SUFFIXES = (".desktop.in", ".metainfo.xml.in", ".gschema.xml.in")


def main():
    top = sys.argv[1]
    potfiles = os.path.join(top, "po", "POTFILES.in")
    with open(potfiles, encoding="utf-8") as f:
        lines = [l.strip() for l in f]
    listed = [l for l in lines if l and not l.startswith("#")]

    needed = []
    for folder, dirs, files in os.walk(os.path.join(top, "src")):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                if MARKERS.search(f.read()):
                    needed.append(os.path.relpath(path, top))
    data_dir = os.path.join(top, "data")
    for name in sorted(os.listdir(data_dir)):
        if name.endswith(DATA_SUFFIXES):
            needed.append(os.path.join("data", name))

    results = []
    for path in sorted(needed):
        results.append((path in listed, f"{path} has translatable strings and is listed"))
    for path in listed:
        results.append((os.path.isfile(os.path.join(top, path)), f"listed file {path} exists"))
    results.append((len(listed) == len(set(listed)), "no file is listed twice"))
    results.append((listed == sorted(listed), "POTFILES.in is sorted"
                    + ("" if listed == sorted(listed) else
                       f" (expected order: {' '.join(sorted(listed))})")))

    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    missing = [p for p in needed if p not in listed]
    if missing:
        print("# add to po/POTFILES.in:", file=sys.stderr)
        for p in missing:
            print(f"#   {p}", file=sys.stderr)
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
