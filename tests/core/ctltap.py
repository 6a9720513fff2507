# SPDX-License-Identifier: GPL-3.0-or-later
"""TAP for the prosponsive-ctl tests of this folder: one line a check, the
plan at the end, a diagnosis (its last lines) under a failing check."""

import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=""):
        self.n += 1
        if not cond:
            self.failed += 1
            for line in str(diag).splitlines()[-20:]:
                print("# " + line)
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        sys.stdout.flush()

    def finish(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0
