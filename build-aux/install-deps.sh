#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs every Debian 12 package that building, running and testing
# Prosponsive needs. Idempotent: it only calls apt-get when something is
# missing, so CI and a newcomer's second run are fast.
set -euo pipefail

PACKAGES=(
  # build
  meson ninja-build pkg-config gcc gettext
  libglib2.0-dev libglib2.0-bin libgtk-4-dev libadwaita-1-dev
  libsoup-3.0-dev libjson-glib-dev libsecret-1-dev libsqlite3-dev
  libgnutls28-dev libmd4c-dev libyaml-dev glib-networking
  # data validation
  desktop-file-utils appstream libxml2-utils librsvg2-bin
  # tests: real X server, real Secret Service, HTTPS clients
  xvfb xauth imagemagick gnome-keyring dbus dbus-x11 libsecret-tools
  # key presses through the X server in the ui tests (XTest, loaded at run time)
  libxtst6
  curl jq openssl python3 sqlite3 procps locales
  # benchmarks (bench/run): HTTP load and command timing
  wrk hyperfine
  # n8n's native sqlite3 module is compiled from source
  make g++
  # the email suite: a real IMAP server on loopback, with its own configuration,
  # and a notification daemon whose Approve a person picks
  dovecot-imapd dunst
  # fuzzing (libFuzzer) and sanitizers
  clang libclang-rt-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The translation test starts the window in German: it needs that locale.
if ! locale -a 2>/dev/null | grep -qix 'de_DE.utf8'; then
  echo "install-deps: generating the de_DE.UTF-8 locale"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO localedef -i de_DE -c -f UTF-8 de_DE.UTF-8
fi

# n8n 1.123 needs Node.js >= 20.19 (only the n8n test suite uses it).
if ! command -v node >/dev/null 2>&1; then
  echo "install-deps: warning: Node.js is missing; the n8n test suite needs Node.js >= 20.19" >&2
fi
