#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The application icons are valid SVG of the right size, render, and the
symbolic one is a single colour so GTK can recolour it.
Usage: check-icons.py XMLLINT RSVG-CONVERT APP.svg SYMBOLIC.svg (a program
given as "" is skipped with a note). Output is TAP."""

import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
results = []


def check(ok, what):
    results.append((bool(ok), what))
    return ok


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def colours(root):
    found = set()
    for el in root.iter():
        for attr in ("fill", "stroke", "stop-color"):
            v = el.get(attr)
            if v and v not in ("none",):
                found.add(v.lower())
        for m in re.finditer(r"(?:fill|stroke|stop-color)\s*:\s*([^;]+)", el.get("style", "")):
            if m.group(1).strip() != "none":
                found.add(m.group(1).strip().lower())
    return found


def check_icon(path, size, xmllint, rsvg, symbolic):
    name = os.path.basename(path)
    if xmllint:
        proc = subprocess.run([xmllint, "--noout", path], capture_output=True, text=True)
        check(proc.returncode == 0, f"{name}: xmllint accepts it" + (f" ({proc.stderr.strip()})" if proc.returncode else ""))
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        check(False, f"{name}: parses as XML ({e})")
        return
    check(root.tag == SVG + "svg", f"{name}: the root element is an SVG <svg>")
    check(root.get("viewBox", "").split() == ["0", "0", str(size), str(size)],
          f"{name}: viewBox is 0 0 {size} {size}")
    check(root.get("width") == str(size) and root.get("height") == str(size),
          f"{name}: {size}×{size}")
    check(not any(el.tag in (SVG + "image", SVG + "script", SVG + "foreignObject") for el in root.iter()),
          f"{name}: no embedded images, scripts or foreign objects")
    check(not any(el.tag == SVG + "text" for el in root.iter()), f"{name}: no text (fonts differ)")
    if symbolic:
        found = colours(root)
        check(found <= {"#000", "#000000", "black"}, f"{name}: a single colour, black (found {sorted(found)})")
    if rsvg:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "icon.png")
            proc = subprocess.run([rsvg, "-w", str(size), "-h", str(size), "-o", out, path],
                                  capture_output=True, text=True)
            check(proc.returncode == 0 and png_size(out) == (size, size),
                  f"{name}: rsvg-convert renders it at {size}×{size}" + (f" ({proc.stderr.strip()})" if proc.returncode else ""))


def main():
    xmllint, rsvg, app_icon, symbolic_icon = sys.argv[1:5]
    if not xmllint:
        print("# xmllint not found (libxml2-utils): XML checked by Python only")
    if not rsvg:
        print("# rsvg-convert not found (librsvg2-bin): rendering not checked")
    check_icon(app_icon, 128, xmllint, rsvg, symbolic=False)
    check_icon(symbolic_icon, 16, xmllint, rsvg, symbolic=True)
    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
