#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every catalogue named in po/LINGUAS passes `msgfmt -c` (format strings,
headers, plural forms) and is complete enough to ship. Completion is
measured against a template extracted from the sources NOW (xgettext over
po/POTFILES.in, then msgmerge into a copy), so a catalogue that misses new
strings cannot pass. Prints each catalogue's completion figure. With an
empty LINGUAS there is nothing to check and the test passes. Output is TAP."""

import os
import re
import shutil
import subprocess
import sys
import tempfile


def fresh_template(po_dir, workdir):
    top = os.path.dirname(os.path.abspath(po_dir))
    pot = os.path.join(workdir, "prosponsive.pot")
    subprocess.run(["xgettext", "--from-code=UTF-8", "--keyword=_", "--keyword=N_",
                    "--keyword=C_:1c,2", "--keyword=NC_:1c,2", "--keyword=g_dngettext:2,3",
                    "--keyword=ngettext:1,2", "--add-comments=Translators",
                    "--package-name=prosponsive", "-D", top,
                    "-f", os.path.join(po_dir, "POTFILES.in"), "-o", pot],
                   check=True, capture_output=True)
    return pot


def merged_copy(po, pot, workdir):
    copy = os.path.join(workdir, os.path.basename(po))
    shutil.copy(po, copy)
    subprocess.run(["msgmerge", "--quiet", "--update", "--backup=off", copy, pot],
                   check=True, capture_output=True)
    return copy

MIN_COMPLETION = 95.0  # per cent of messages translated


def linguas(po_dir):
    langs = []
    with open(os.path.join(po_dir, "LINGUAS"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0]
            langs += line.split()
    return langs


def count(pattern, text):
    m = re.search(pattern, text)
    return int(m.group(1)) if m else 0


def main():
    msgfmt, po_dir = sys.argv[1], sys.argv[2]
    langs = linguas(po_dir)
    results = []
    workdir = tempfile.mkdtemp(prefix="prs-po-")
    pot = fresh_template(po_dir, workdir) if langs else None
    for lang in langs:
        po = os.path.join(po_dir, lang + ".po")
        if not os.path.isfile(po):
            results.append((False, f"{lang}: {lang}.po exists"))
            continue
        po = merged_copy(po, pot, workdir)
        proc = subprocess.run([msgfmt, "-c", "--statistics", "-o", os.devnull, po],
                              capture_output=True, text=True,
                              env=dict(os.environ, LC_ALL="C", LANGUAGE=""))
        report = (proc.stdout + proc.stderr).strip()
        translated = count(r"(\d+) translated message", report)
        fuzzy = count(r"(\d+) fuzzy translation", report)
        untranslated = count(r"(\d+) untranslated message", report)
        total = translated + fuzzy + untranslated
        figure = 100.0 * translated / total if total else 0.0
        print(f"# {lang}: {figure:.1f}% ({translated}/{total}; {fuzzy} fuzzy, {untranslated} untranslated)")
        results.append((proc.returncode == 0, f"{lang}: msgfmt -c accepts {lang}.po"
                        + ("" if proc.returncode == 0 else " — " + report.replace("\n", " | "))))
        results.append((figure >= MIN_COMPLETION,
                        f"{lang}: {figure:.1f}% translated (at least {MIN_COMPLETION:.0f}%)"))

    shutil.rmtree(workdir, ignore_errors=True)
    if not results:
        print("1..1")
        print("ok 1 - po/LINGUAS lists no catalogue yet: nothing to check")
        return 0
    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
