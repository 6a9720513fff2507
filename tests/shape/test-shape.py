#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The code's shape, as HACKING.md states it: no source file over 1,200 lines,
no C function over 100, and an include graph that points down (ui -> core ->
base; a folder of src/core includes only the folders listed before it in
src/core/meson.build's core_subdirs, and nothing of GTK). Prints TAP."""

import argparse
import os
import re
import sys

MAX_FILE_LINES = 1200
MAX_FUNCTION_LINES = 100
SOURCE_SUFFIXES = ('.c', '.h', '.py', '.js', '.sh')
SKIP_DIRS = {'node_modules', '__pycache__'}
TOOLKIT_HEADERS = ('gtk/', 'adwaita.h', 'pango/', 'cairo', 'gdk/')


def sources(top, roots):
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(os.path.join(top, root)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith('_build'))
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(dirpath, name)


def long_functions(text):
    """C functions in the GNOME style of CONVENTIONS.md: the body's braces at
    column 0. Yields (first line, body lines) of each over the limit."""
    start = None
    for number, line in enumerate(text.split('\n'), 1):
        if line.startswith('{'):
            start = number
        elif line.startswith('}') and start is not None:
            body = number - start - 1
            if body > MAX_FUNCTION_LINES:
                yield start, body
            start = None


def core_order(top):
    with open(os.path.join(top, 'src', 'core', 'meson.build'), encoding='utf-8') as f:
        match = re.search(r"core_subdirs\s*=\s*\[([^\]]*)\]", f.read())
    return re.findall(r"'([^']+)'", match.group(1))


def header_homes(top):
    homes = {}
    for path in sources(top, ['src']):
        if path.endswith('.h'):
            homes.setdefault(os.path.basename(path), os.path.relpath(os.path.dirname(path), top))
    return homes


def layer_of(folder, order):
    """A rank per folder: base first, the ui above the core, the app above both."""
    parts = folder.split(os.sep)
    if parts[1] == 'core':
        if len(parts) == 2:
            return len(order)           # src/core/prs-service*: over every core folder
        return order.index(parts[2])
    return {'ui': 100, 'app': 200}[parts[1]]


def wrong_includes(path, text, top, order, homes):
    folder = os.path.relpath(os.path.dirname(path), top)
    mine = layer_of(folder, order)
    for number, line in enumerate(text.split('\n'), 1):
        match = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
        if not match:
            continue
        name = match.group(2)
        if folder.startswith(os.path.join('src', 'core')) and name.startswith(TOOLKIT_HEADERS):
            yield number, '%s: the core maps no toolkit' % name
            continue
        home = homes.get(os.path.basename(name)) if match.group(1) == '"' else None
        if home is None or home == folder:
            continue
        if layer_of(home, order) > mine:
            yield number, '%s lives in %s, above %s' % (name, home, folder)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--top', required=True)
    top = parser.parse_args().top
    order = core_order(top)
    homes = header_homes(top)
    checks = []

    for path in sources(top, ['src', 'tests', 'bench', 'build-aux']):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        rel = os.path.relpath(path, top)
        problems = []
        lines = text.count('\n')
        if lines > MAX_FILE_LINES:
            problems.append('%d lines (at most %d)' % (lines, MAX_FILE_LINES))
        if path.endswith('.c'):
            problems += ['the function at line %d has %d lines (at most %d)' % (start, body, MAX_FUNCTION_LINES)
                         for start, body in long_functions(text)]
        if path.endswith(('.c', '.h')) and rel.startswith('src' + os.sep):
            problems += ['line %d includes %s' % item for item in wrong_includes(path, text, top, order, homes)]
        checks.append((rel, problems))

    print('TAP version 13')
    print('1..%d' % len(checks))
    failed = 0
    for number, (rel, problems) in enumerate(checks, 1):
        if problems:
            failed += 1
            print('not ok %d - %s' % (number, rel))
            for problem in problems:
                print('# %s: %s' % (rel, problem))
        else:
            print('ok %d - %s' % (number, rel))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
