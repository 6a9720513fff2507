#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs a command against a real Secret Service: a private D-Bus session bus
# with gnome-keyring-daemon, its login keyring unlocked with an empty
# password, in a throwaway HOME so the user's own keyring is never touched.
set -euo pipefail

if [ -z "${PRS_KEYRING_INNER:-}" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/prs-keyring.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  export HOME="$tmp" XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run" PRS_KEYRING_INNER=1
  mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
  chmod 0700 "$XDG_RUNTIME_DIR"
  dbus-run-session -- "$0" "$@"
  exit $?
fi

# Inside the private bus: start the daemon with only the secrets component,
# creating and unlocking its login keyring with a throwaway password (an
# empty one makes it ask through a prompt, which cannot show here). The
# daemon must not inherit the tests' G_DEBUG=fatal-warnings.
eval "$(printf 'prosponsive-test\n' | env -u G_DEBUG gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL
exec "$@"
