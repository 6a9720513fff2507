#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The built desktop file, D-Bus service file and metainfo agree with each
other and with the application id (DBusActivatable only works when the
desktop file, the service and the application id are the same name).
Usage: check-desktop-integration.py APP_ID VERSION DESKTOP SERVICE METAINFO
SCREENSHOT_DIR. Output is TAP."""

import configparser
import os
import sys
import xml.etree.ElementTree as ET

results = []


def check(ok, what):
    results.append((bool(ok), what))
    return ok


def read_ini(path, group):
    parser = configparser.RawConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(path, encoding="utf-8")
    return dict(parser[group]) if parser.has_section(group) else {}


def main():
    app_id, version, desktop, service, metainfo, screenshot_dir = sys.argv[1:7]

    entry = read_ini(desktop, "Desktop Entry")
    check(os.path.basename(desktop) == app_id + ".desktop", f"the desktop file is {app_id}.desktop")
    check(entry.get("Icon") == app_id, f"Icon is {app_id}")
    check(entry.get("DBusActivatable") == "true", "DBusActivatable=true")
    check(entry.get("StartupNotify") == "true", "StartupNotify=true")
    check(entry.get("Exec", "").split()[:1] == ["prosponsive"], "Exec runs prosponsive")
    check(not any(code in entry.get("Exec", "") for code in ("%U", "%u", "%F", "%f")),
          "Exec passes no files or URLs (the application opens none)")
    check(entry.get("Keywords", "").endswith(";"), "Keywords end with a semicolon")

    dbus = read_ini(service, "D-BUS Service")
    check(os.path.basename(service) == app_id + ".service", f"the D-Bus service file is {app_id}.service")
    check(dbus.get("Name") == app_id, f"the D-Bus service is named {app_id}")
    exec_ = dbus.get("Exec", "").split()
    check(len(exec_) == 2 and os.path.isabs(exec_[0]) and os.path.basename(exec_[0]) == "prosponsive"
          and exec_[1] == "--gapplication-service",
          "the D-Bus service starts /…/prosponsive --gapplication-service")

    root = ET.parse(metainfo).getroot()
    check(os.path.basename(metainfo) == app_id + ".metainfo.xml", f"the metainfo is {app_id}.metainfo.xml")
    check(root.findtext("id") == app_id, f"metainfo id is {app_id}")
    check(root.findtext("launchable[@type='desktop-id']") == app_id + ".desktop",
          "the metainfo launches the desktop file")
    binaries = {b.text for b in root.findall("provides/binary")}
    check({"prosponsive", "prosponsive-ctl"} <= binaries, "the metainfo provides both programs")
    check(root.find("content_rating[@type='oars-1.1']") is not None, "content rating is OARS 1.1")
    releases = [r.get("version") for r in root.findall("releases/release")]
    check(version in releases, f"the releases include this version, {version}")
    images = [i.text.strip() for i in root.findall("screenshots/screenshot/image")]
    check(images, "the metainfo has screenshots")
    check(all(i.startswith("https://") for i in images), "screenshot URLs are HTTPS")
    check(root.find("screenshots/screenshot[@type='default']") is not None, "one screenshot is the default")

    # Screenshots taken of the real application live in data/screenshots/
    # and are published under the same names.
    shots = sorted(f for f in os.listdir(screenshot_dir) if f.endswith(".png")) if os.path.isdir(screenshot_dir) else []
    if shots:
        for image in images:
            name = image.rsplit("/", 1)[-1]
            check(name in shots, f"screenshot {name} is in data/screenshots/")
    else:
        print("# data/screenshots/ has no PNG yet: the screenshot files are not cross-checked")

    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
