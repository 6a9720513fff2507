#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl schedule (docs/schedules.md): add with each kind of
recurrence, list (text and JSON, with the next fire time worked out here
independently in Europe/Berlin), enable, disable, remove; what is refused
and with which exit status; `schedule run` when no Prosponsive runs says so
and leaves no request behind. TAP."""
import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from zoneinfo import ZoneInfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltap import Tap  # noqa: E402

ctl = sys.argv[1]
tap = Tap()
BERLIN = ZoneInfo("Europe/Berlin")
ENV = dict(os.environ, PROSPONSIVE_SECRETS="file", TZ="Europe/Berlin", LC_ALL="C.UTF-8")
ENV.pop("PROSPONSIVE_TEST_CLOCK", None)


def run(*args, stdin=None, timeout=60):
    return subprocess.run([ctl, "--data-dir", data, "schedule", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=ENV)


def listed():
    r = run("list", "--json")
    return {s["name"]: s for s in json.loads(r.stdout)}


def next_weekday_time(now, hour, minute, weekdays):
    """The first local HH:MM on one of @weekdays (0 = Monday) after @now."""
    day = now.astimezone(BERLIN).date()
    for i in range(9):
        d = day + datetime.timedelta(days=i)
        at = datetime.datetime(d.year, d.month, d.day, hour, minute, tzinfo=BERLIN)
        if d.weekday() in weekdays and at > now:
            return at
    raise AssertionError("no weekday")


def utc_text(at):
    return at.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


data = tempfile.mkdtemp(prefix="prs-ctl-schedule-")
try:
    before = datetime.datetime.now(datetime.timezone.utc)
    r = run("add", "--name", "Morning briefing", "--conversation", "Morning", "--agent", "prosponsive",
            "--prompt", "Summarise my day.", "--daily", "07:30", "--days", "mon,tue,wed,thu,fri")
    tap.ok(r.returncode == 0, "add --daily --days exits 0", r.stderr)
    tap.ok(r.stdout.startswith("Added “Morning briefing”: Weekdays at 07:30, in “Morning”, by agent “prosponsive”.\n"
                               "Next run: "), "add says what it added and when it runs next", r.stdout)

    with open(os.path.join(data, "context.json"), "w") as f:
        f.write('{ "team": "ops", "limit": 3 }')
    r = run("add", "--name", "Report", "--conversation", "Reports", "--agent", "prosponsive",
            "--prompt", "The monthly report.", "--monthly", "31", "--time", "09:00",
            "--context-file", os.path.join(data, "context.json"), "--missed", "skip")
    tap.ok(r.returncode == 0, "add --monthly --time --context-file --missed skip exits 0", r.stderr)
    r = run("add", "--name", "Poll", "--conversation", "Inbox", "--agent", "prosponsive",
            "--prompt", "Anything new?", "--every", "2h")
    tap.ok(r.returncode == 0 and "Every 2 hours" in r.stdout, "add --every 2h", r.stdout + r.stderr)
    r = run("add", "--name", "New year", "--conversation", "Inbox", "--agent", "prosponsive",
            "--prompt", "Happy new year!", "--at", "2030-01-01T00:00")
    tap.ok(r.returncode == 0 and "Next run: Tue 1 Jan 2030, 00:00 CET." in r.stdout, "add --at (local time)",
           r.stdout + r.stderr)

    schedules = listed()
    tap.ok(sorted(schedules) == ["Morning briefing", "New year", "Poll", "Report"], "list --json lists them by name",
           schedules.keys())
    morning = schedules["Morning briefing"]
    tap.ok(morning["recurrence"] == {"kind": "daily", "time": "07:30", "days": ["mon", "tue", "wed", "thu", "fri"]}
           and morning["enabled"] and morning["missed"] == "run" and morning["lastFiredAt"] is None,
           "the daily schedule as stored", morning)
    expected = next_weekday_time(before, 7, 30, range(5))
    tap.ok(morning["nextFireAt"] == utc_text(expected), "its next fire time is the next weekday 07:30 in Berlin",
           "%s != %s" % (morning["nextFireAt"], utc_text(expected)))
    report = schedules["Report"]
    tap.ok(report["context"] == {"team": "ops", "limit": 3} and report["missed"] == "skip"
           and report["recurrence"] == {"kind": "monthly", "day": 31, "time": "09:00"},
           "the Request Context kept as JSON, skip kept", report)
    tap.ok(schedules["New year"]["nextFireAt"] == "2029-12-31T23:00:00Z", "once: its instant in UTC",
           schedules["New year"])

    r = run("list")
    tap.ok(r.returncode == 0 and "Report (on)\n  Monthly on day 31 (or the month’s last day) at 09:00, in “Reports”, "
           "by agent “prosponsive”\n" in r.stdout, "list in words", r.stdout)

    # What is refused, and how
    cases = [
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--every", "30"), 2,
         "is not an interval"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p"), 2, "Say when"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--every", "30m",
          "--daily", "07:00"), 2, "Say when"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--daily", "25:00"),
         2, "not a time of day"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--monthly", "1"),
         2, "--monthly needs --time"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--monthly", "32",
          "--time", "09:00"), 2, "between 1 and 31"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--at",
          "2020-01-01T09:00"), 2, "has passed"),
        (("add", "--name", "X", "--conversation", "slug:M", "--agent", "prosponsive", "--prompt", "p", "--every",
          "30m"), 2, "not starting with “slug:”"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "nobody", "--prompt", "p", "--every", "30m"), 1,
         "There is no agent “nobody”."),
        (("add", "--name", "poll", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--every",
          "30m"), 1, "exists already"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--every", "30m",
          "--missed", "later"), 2, "either run or skipped"),
        (("add", "--name", "X", "--conversation", "M", "--agent", "prosponsive", "--prompt", "p", "--every", "30m",
          "--context-file", "-"), 2, "not valid JSON"),
        (("enable", "nothing"), 1, "There is no schedule “nothing”."),
        (("frobnicate",), 2, "Use “schedule add"),
    ]
    for argv, status, words in cases:
        stdin = '{"a": 1,}' if "--context-file" in argv else None
        r = run(*argv, stdin=stdin)
        tap.ok(r.returncode == status and words in r.stderr, "refused with exit %d: %s" % (status, words),
               "exit %d: %s" % (r.returncode, r.stderr))
    tap.ok(len(listed()) == 4, "nothing refused was stored")

    r = run("disable", "poll")
    tap.ok(r.returncode == 0 and r.stdout == "“Poll” is off.\n", "disable, by name ignoring case", r.stdout)
    poll = listed()["Poll"]
    tap.ok(not poll["enabled"] and poll["nextFireAt"] is None, "an off schedule has no next fire time", poll)
    r = run("enable", "Poll")
    tap.ok(r.returncode == 0 and r.stdout.startswith("“Poll” is on.\nNext run: "), "enable", r.stdout)
    # Counted from when it was turned on: within two hours from now
    poll = listed()["Poll"]
    next_fire = datetime.datetime.strptime(poll["nextFireAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    delta = next_fire - datetime.datetime.now(datetime.timezone.utc)
    tap.ok(datetime.timedelta(hours=1, minutes=58) < delta <= datetime.timedelta(hours=2),
           "every 2 h counts from when it was turned on", delta)

    # Run Now with nothing running: said plainly, and no request is left for later
    r = run("run", "Poll", timeout=30)
    tap.ok(r.returncode == 1 and "Prosponsive is not running with the data folder" in r.stderr
           and "“Poll” did not run" in r.stderr, "run without a running Prosponsive says so (exit 1)", r.stderr)
    db = sqlite3.connect(os.path.join(data, "prosponsive.db"))
    tap.ok(db.execute("SELECT count(*) FROM schedules WHERE run_requested_at IS NOT NULL").fetchone()[0] == 0,
           "the request was taken back")
    tap.ok(db.execute("SELECT count(*) FROM messages").fetchone()[0] == 0, "and nothing ran")
    db.close()

    r = run("remove", "Poll")
    tap.ok(r.returncode == 0 and r.stdout == "Removed “Poll”; its messages stay in “Inbox”.\n", "remove", r.stdout)
    r = run("remove", "Poll")
    tap.ok(r.returncode == 1 and "There is no schedule “Poll”." in r.stderr, "removing again: not found (exit 1)",
           r.stderr)
finally:
    shutil.rmtree(data, ignore_errors=True)

sys.exit(tap.finish())
