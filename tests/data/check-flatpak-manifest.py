#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flatpak manifest's structure, checked offline (this machine cannot
reach Flathub, so flatpak-builder itself is not run): it parses, names the
application id, runtime, SDK and command, asks for exactly the sandbox holes
the application needs, and every module file and local source it names
exists. Output is TAP."""

import json
import os
import sys

REQUIRED_FINISH_ARGS = {
    "--share=network",
    "--share=ipc",
    "--socket=wayland",
    "--socket=fallback-x11",
    "--device=dri",
    "--talk-name=org.freedesktop.secrets",
}
LOCAL_SOURCE_TYPES = {"dir", "file", "patch", "script", "shell", "archive", "git"}

results = []


def check(ok, what):
    results.append((bool(ok), what))
    return ok


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, str(e)


def check_source(source, base_dir, where):
    kind = source.get("type")
    check(isinstance(kind, str), f"{where}: has a type")
    if kind in ("dir", "file", "patch"):
        paths = []
        if "path" in source:
            paths.append(source["path"])
        paths += source.get("paths", [])
        if kind == "file" and "url" in source:
            check("sha256" in source or "sha512" in source, f"{where}: remote file has a checksum")
            return
        check(paths, f"{where}: local {kind} source names a path")
        for p in paths:
            full = os.path.normpath(os.path.join(base_dir, p))
            check(os.path.exists(full), f"{where}: local {kind} source {p} exists")
            if kind == "dir":
                check(os.path.isdir(full), f"{where}: {p} is a folder")
        for s in source.get("skip", []):
            check(isinstance(s, str) and not os.path.isabs(s), f"{where}: skip entry {s!r} is relative")
    elif kind in ("archive",):
        if "path" in source:
            check(os.path.exists(os.path.join(base_dir, source["path"])), f"{where}: local archive exists")
        else:
            url = source.get("url", "")
            check(url.startswith("https://"), f"{where}: archive is fetched over HTTPS")
            sha = source.get("sha256", "")
            check(len(sha) == 64 and all(c in "0123456789abcdef" for c in sha),
                  f"{where}: archive has a real sha256")
    elif kind == "git":
        if "path" in source:
            check(os.path.isdir(os.path.join(base_dir, source["path"])), f"{where}: local git folder exists")
        else:
            check(source.get("url", "").startswith("https://"), f"{where}: git source over HTTPS")
            check("commit" in source, f"{where}: git source pins a commit")
    elif kind in ("script", "shell"):
        check("commands" in source, f"{where}: {kind} source has commands")


def check_module(module, base_dir, where, seen):
    if isinstance(module, str):
        path = os.path.normpath(os.path.join(base_dir, module))
        if not check(os.path.isfile(path), f"{where}: module file {module} exists"):
            return
        data, err = load_json(path)
        if not check(data is not None, f"{module} parses as JSON" + (f" ({err})" if err else "")):
            return
        # Paths inside an included module file are relative to that file.
        check_module(data, os.path.dirname(path), module, seen)
        return

    if not check(isinstance(module, dict), f"{where}: module is an object"):
        return
    name = module.get("name")
    check(isinstance(name, str) and name, f"{where}: module has a name")
    check(name not in seen, f"{where}: module name {name} is unique")
    seen.add(name)
    sources = module.get("sources", [])
    check(isinstance(sources, list) and sources, f"{where}: module {name} has sources")
    for i, source in enumerate(sources):
        if isinstance(source, str):
            path = os.path.join(base_dir, source)
            check(os.path.isfile(path), f"{where}: source file {source} exists")
            continue
        check_source(source, base_dir, f"{where}: {name} source {i}")
    for i, sub in enumerate(module.get("modules", [])):
        check_module(sub, base_dir, f"{where}: {name} submodule {i}", seen)


def main():
    manifest_path, app_id = sys.argv[1], sys.argv[2]
    base_dir = os.path.dirname(os.path.abspath(manifest_path))

    check(os.path.basename(manifest_path) == app_id + ".json",
          f"the manifest is named after the application id ({app_id}.json)")
    manifest, err = load_json(manifest_path)
    if check(manifest is not None, "the manifest parses as JSON" + (f" ({err})" if err else "")):
        mid = manifest.get("id", manifest.get("app-id"))
        check(mid == app_id, f"id is {app_id} (found {mid})")
        check(manifest.get("runtime") == "org.gnome.Platform", "runtime is org.gnome.Platform")
        check(manifest.get("sdk") == "org.gnome.Sdk", "sdk is org.gnome.Sdk")
        version = str(manifest.get("runtime-version", ""))
        check(version.isdigit() and int(version) >= 47,
              f"runtime-version is a stable GNOME release (found {version!r})")
        check(manifest.get("command") == "prosponsive", "command is prosponsive")

        finish = manifest.get("finish-args", [])
        check(len(finish) == len(set(finish)), "finish-args has no duplicates")
        check(set(finish) == REQUIRED_FINISH_ARGS,
              "finish-args is exactly the required set"
              + f" (extra: {sorted(set(finish) - REQUIRED_FINISH_ARGS)},"
              + f" missing: {sorted(REQUIRED_FINISH_ARGS - set(finish))})")
        for arg in finish:
            check(not arg.startswith(("--filesystem", "--socket=session-bus", "--socket=system-bus",
                                      "--device=all", "--talk-name=org.freedesktop.Flatpak")),
                  f"finish-arg {arg} opens no hole beyond the network and the keyring")
        check(isinstance(manifest.get("cleanup", None), list) and manifest["cleanup"],
              "the manifest has a cleanup list")

        modules = manifest.get("modules", [])
        check(modules, "the manifest has modules")
        seen = set()
        for i, module in enumerate(modules):
            check_module(module, base_dir, f"module {i}", seen)

        app = modules[-1] if modules and isinstance(modules[-1], dict) else {}
        check(app.get("name") == "prosponsive", "the last module is the application")
        check(app.get("buildsystem") == "meson", "the application builds with meson")
        check(app.get("builddir") is True, "the application builds out of tree (builddir)")
        check(app.get("run-tests") is True, "the application runs its tests (run-tests)")
        for cmd in app.get("test-commands", []):
            script = cmd.split()[0]
            if "/" in script:
                # test-commands run in the build folder, one level below the sources.
                path = os.path.normpath(os.path.join(base_dir, "_flatpak_build", script))
                check(os.path.isfile(path) and os.access(path, os.X_OK),
                      f"test command {script} exists and is executable")
        check(any(s.get("type") == "dir" and s.get("path") == "." for s in app.get("sources", [])
                  if isinstance(s, dict)),
              "the application is built from this folder (dir source \".\")")

    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
