#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# n8n-env.sh: a real, private n8n 1.123 for the n8n test suite.
#
# Starts n8n from the test cache (installing it first when missing, see
# install-n8n.sh) on a random free loopback port, with its data in a fresh
# work folder and everything that phones home turned off; waits until the
# REST API is mounted; creates the owner and a public-API key with every
# scope. All n8n state lives in the work folder; nothing listens beyond
# 127.0.0.1.
#
# Two ways to use it:
#
#  * As a library:   source n8n-env.sh; n8n_env_start WORK_DIR
#    exports N8N_URL, N8N_API_KEY, N8N_PID, N8N_WORK_DIR (plus N8N_OWNER_EMAIL,
#    N8N_OWNER_PASSWORD, N8N_BROWSER_ID, N8N_COOKIE_JAR for the internal
#    /rest API) and defines n8n_env_stop. An EXIT trap stops n8n.
#
#  * As a program:   n8n-env.sh WORK_DIR [ENV_FILE]
#    starts n8n, writes {"url","apiKey","pid","workDir",…} to ENV_FILE
#    (default WORK_DIR/env.json), prints "READY <url>" on stdout, then stays
#    alive until its standard input is closed (or it gets TERM/INT/HUP), and
#    stops n8n before it exits. A test that runs it as a child with a pipe on
#    stdin therefore never leaves n8n behind, even if the test crashes. The
#    lines "stop" (or "kill") and "start" on stdin stop n8n and start it
#    again on the same port and data (answering "STOPPED", "STARTED PID").
#
# n8n is stopped with TERM, then KILL after 20 s. Its log is WORK_DIR/n8n.log.
# Tools: node >= 20.19, npm (first install only), curl, python3.

_n8n_env_log() { printf '[n8n-env %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
_n8n_env_die() { _n8n_env_log "FATAL: $*"; return 1; }

_n8n_env_now() { date +%s.%N; }
_n8n_env_elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(_n8n_env_now)"; }

_n8n_env_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# _n8n_env_json_get FILE EXPR: prints a value from a JSON file (python expression on `d`).
_n8n_env_json_get() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$1" "$2"
}

_n8n_env_rest() {
  # The session cookie is bound to the browser-id header it was created with.
  curl -sS --max-time 30 -b "$N8N_COOKIE_JAR" -c "$N8N_COOKIE_JAR" -H "browser-id: $N8N_BROWSER_ID" \
    -H 'Content-Type: application/json' "$@"
}

_n8n_env_rest_up() {
  local code
  code=$(curl -s --max-time 5 -o "$N8N_WORK_DIR/probe.out" -w '%{http_code}' "$N8N_URL/rest/login") || return 1
  [ "$code" = 401 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$N8N_WORK_DIR/probe.out" 2>/dev/null
}

n8n_env_stop() {
  local pid=${N8N_PID:-} t0
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    t0=$(_n8n_env_now)
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      _n8n_env_log "n8n (PID $pid) ignored TERM for 20 s, sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    _n8n_env_log "n8n (PID $pid) stopped in $(_n8n_env_elapsed "$t0") s"
  fi
  N8N_PID=""
}

# Launches n8n once, on PORT when given (a restart), else on a fresh free
# port; returns 2 when the port was lost to someone else (the caller
# retries), 1 on other failures. The log only grows: a restart appends.
_n8n_env_launch() {
  local port=${1:-} runner_port t0 url work bin key log_start
  [ -n "$port" ] || port=$(_n8n_env_free_port)
  runner_port=$(_n8n_env_free_port)
  N8N_URL="http://127.0.0.1:$port"
  # The same key on every launch: a restart must decrypt the credentials.
  : "${_N8N_ENV_ENCRYPTION_KEY:=prosponsive-test-$port-$RANDOM$RANDOM}"
  # Copies that survive the clean-up of N8N_* variables below.
  url=$N8N_URL work=$N8N_WORK_DIR bin=$N8N_BIN key=$_N8N_ENV_ENCRYPTION_KEY
  touch "$work/n8n.log"
  log_start=$(( $(stat -c %s "$work/n8n.log") + 1 ))

  t0=$(_n8n_env_now)
  # A subshell that drops every inherited N8N_*/DB_* setting, then execs
  # node: its PID is n8n's PID.
  (
    for v in $(compgen -e); do
      case $v in N8N_*|DB_*|WEBHOOK_URL|NODE_OPTIONS|EXTERNAL_*) unset "$v" ;; esac
    done
    export N8N_USER_FOLDER="$work/n8n-home"
    export N8N_PORT="$port" N8N_LISTEN_ADDRESS=127.0.0.1 N8N_HOST=127.0.0.1 N8N_PROTOCOL=http
    export WEBHOOK_URL="$url/" N8N_EDITOR_BASE_URL="$url/"
    export DB_TYPE=sqlite DB_SQLITE_POOL_SIZE=2
    export N8N_ENCRYPTION_KEY="$key"
    export N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=true N8N_SECURE_COOKIE=false
    export N8N_DIAGNOSTICS_ENABLED=false N8N_DIAGNOSTICS_CONFIG_FRONTEND='' N8N_DIAGNOSTICS_CONFIG_BACKEND=''
    export EXTERNAL_FRONTEND_HOOKS_URLS=''
    export N8N_VERSION_NOTIFICATIONS_ENABLED=false N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED=false
    export N8N_TEMPLATES_ENABLED=false N8N_PERSONALIZATION_ENABLED=false N8N_DYNAMIC_BANNERS_ENABLED=false
    export N8N_HIRING_BANNER_ENABLED=false N8N_AI_ENABLED=false N8N_COMMUNITY_PACKAGES_ENABLED=false
    export N8N_LICENSE_AUTO_RENEW_ENABLED=false N8N_PUBLIC_API_SWAGGERUI_DISABLED=true
    export N8N_BLOCK_ENV_ACCESS_IN_NODE=true N8N_GIT_NODE_DISABLE_BARE_REPOS=true
    export N8N_DISABLE_UI=true
    # Node 20 cannot load isolated-vm, which the default 'vm' engine needs.
    export N8N_EXPRESSION_ENGINE=legacy
    export N8N_RUNNERS_ENABLED=false N8N_RUNNERS_BROKER_PORT="$runner_port"
    export N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1
    # A trigger whose IMAP server went away otherwise holds a stop for 30 s
    export N8N_GRACEFUL_SHUTDOWN_TIMEOUT=10
    export N8N_LOG_LEVEL=info N8N_LOG_OUTPUT=console NODE_ENV=production
    exec node "$bin" start
  ) >> "$work/n8n.log" 2>&1 < /dev/null &
  N8N_PID=$!
  export N8N_PID N8N_URL

  # /healthz and /healthz/readiness answer before the REST routes exist;
  # GET /rest/login turns into a JSON 401 once they are mounted.
  for _ in $(seq 1 900); do
    if ! kill -0 "$N8N_PID" 2>/dev/null; then
      wait "$N8N_PID" 2>/dev/null || true
      N8N_PID=""
      if tail -c +"$log_start" "$N8N_WORK_DIR/n8n.log" | grep -qiE 'already in use|EADDRINUSE'; then return 2; fi
      tail -n 30 "$N8N_WORK_DIR/n8n.log" >&2
      _n8n_env_die "n8n exited during startup (log: $N8N_WORK_DIR/n8n.log)"
      return 1
    fi
    _n8n_env_rest_up && break
    sleep 0.2
  done
  if ! _n8n_env_rest_up; then
    tail -n 30 "$N8N_WORK_DIR/n8n.log" >&2
    n8n_env_stop
    _n8n_env_die "n8n's REST API did not come up within 180 s"
    return 1
  fi
  # The answer must come from OUR process, not another n8n on that port.
  if ! tail -c +"$log_start" "$N8N_WORK_DIR/n8n.log" | grep -q "n8n ready on 127.0.0.1, port $port"; then
    n8n_env_stop
    return 2
  fi
  N8N_STARTUP_SECONDS=$(_n8n_env_elapsed "$t0")
  export N8N_STARTUP_SECONDS
  _n8n_env_log "n8n PID $N8N_PID up at $N8N_URL in $N8N_STARTUP_SECONDS s"
}

# n8n_env_restart: stops n8n and starts it again on the same port, with the
# same data and encryption key, so the owner, the API key, the workflows and
# the credentials stay (what a person's `systemctl restart n8n` does).
n8n_env_restart() {
  local port=${N8N_URL##*:}
  n8n_env_stop
  _n8n_env_launch "$port"
}

# n8n_env_start WORK_DIR: see the header.
n8n_env_start() {
  local work=${1:-} here prefix attempt rc scopes key_json
  [ -n "$work" ] || { _n8n_env_die "usage: n8n_env_start WORK_DIR"; return 1; }
  for t in node curl python3; do
    command -v "$t" >/dev/null || { _n8n_env_die "missing tool: $t"; return 1; }
  done

  mkdir -p "$work" || return 1
  N8N_WORK_DIR=$(cd "$work" && pwd)
  if [ -n "$(ls -A "$N8N_WORK_DIR")" ]; then
    _n8n_env_die "work folder $N8N_WORK_DIR is not empty"
    return 1
  fi
  mkdir -p "$N8N_WORK_DIR/n8n-home"
  export N8N_WORK_DIR

  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  prefix=$(bash "$here/install-n8n.sh" | tail -n 1) || { _n8n_env_die "installing n8n failed"; return 1; }
  N8N_BIN="$prefix/node_modules/n8n/bin/n8n"
  [ -f "$N8N_BIN" ] || { _n8n_env_die "no n8n at $N8N_BIN"; return 1; }

  trap 'n8n_env_stop' EXIT

  for attempt in 1 2 3; do
    _n8n_env_launch && break
    rc=$?
    [ "$rc" = 2 ] || return 1
    _n8n_env_log "port taken by someone else, retrying ($attempt)"
  done
  [ -n "${N8N_PID:-}" ] || { _n8n_env_die "could not start n8n on a free port"; return 1; }

  # Owner + API key over the internal REST API (there is no CLI for either).
  N8N_COOKIE_JAR="$N8N_WORK_DIR/cookies.txt"
  N8N_BROWSER_ID="prosponsive-tests"
  N8N_OWNER_EMAIL=owner@example.com
  N8N_OWNER_PASSWORD='Prosponsive1Test'   # 8-64 chars, a digit and an uppercase letter
  export N8N_COOKIE_JAR N8N_BROWSER_ID N8N_OWNER_EMAIL N8N_OWNER_PASSWORD

  _n8n_env_rest -X POST "$N8N_URL/rest/owner/setup" -o "$N8N_WORK_DIR/owner.json" \
    -d "{\"email\":\"$N8N_OWNER_EMAIL\",\"firstName\":\"Test\",\"lastName\":\"Owner\",\"password\":\"$N8N_OWNER_PASSWORD\"}" \
    || { _n8n_env_die "owner setup request failed"; return 1; }
  [ "$(_n8n_env_json_get "$N8N_WORK_DIR/owner.json" 'd["data"]["role"]' 2>/dev/null)" = global:owner ] \
    || { cat "$N8N_WORK_DIR/owner.json" >&2; _n8n_env_die "owner setup failed"; return 1; }

  _n8n_env_rest "$N8N_URL/rest/api-keys/scopes" -o "$N8N_WORK_DIR/scopes.json" \
    || { _n8n_env_die "reading API key scopes failed"; return 1; }
  scopes=$(_n8n_env_json_get "$N8N_WORK_DIR/scopes.json" 'd["data"]') \
    || { _n8n_env_die "no API key scopes"; return 1; }
  key_json="$N8N_WORK_DIR/api-key.json"
  ( umask 077; _n8n_env_rest -X POST "$N8N_URL/rest/api-keys" -o "$key_json" \
      -d "{\"label\":\"prosponsive-tests\",\"scopes\":$scopes,\"expiresAt\":null}" ) \
    || { _n8n_env_die "API key request failed"; return 1; }
  N8N_API_KEY=$(_n8n_env_json_get "$key_json" 'd["data"]["rawApiKey"]' 2>/dev/null) || N8N_API_KEY=""
  rm -f "$key_json"
  if [ -z "$N8N_API_KEY" ] || [ "$N8N_API_KEY" = null ]; then
    _n8n_env_die "API key creation failed"
    return 1
  fi
  export N8N_API_KEY
  _n8n_env_log "owner and API key ($(_n8n_env_json_get "$N8N_WORK_DIR/scopes.json" 'len(d["data"])') scopes) created"
}

# Program mode ------------------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  [ $# -ge 1 ] || { echo "usage: $0 WORK_DIR [ENV_FILE]" >&2; exit 64; }
  WORK_ARG=$1
  n8n_env_start "$WORK_ARG" || exit 1
  ENV_FILE=${2:-$N8N_WORK_DIR/env.json}
  trap 'n8n_env_stop; exit 0' TERM INT HUP
  ( umask 077
    python3 - "$ENV_FILE.tmp" <<'EOF'
import json, os, sys
keys = {"url": "N8N_URL", "apiKey": "N8N_API_KEY", "pid": "N8N_PID", "workDir": "N8N_WORK_DIR",
        "ownerEmail": "N8N_OWNER_EMAIL", "ownerPassword": "N8N_OWNER_PASSWORD",
        "browserId": "N8N_BROWSER_ID", "cookieJar": "N8N_COOKIE_JAR",
        "startupSeconds": "N8N_STARTUP_SECONDS"}
env = {k: os.environ.get(v, "") for k, v in keys.items()}
env["pid"] = int(env["pid"])
env["startupSeconds"] = float(env["startupSeconds"] or 0)
with open(sys.argv[1], "w") as f:
    json.dump(env, f)
EOF
  ) || exit 1
  mv "$ENV_FILE.tmp" "$ENV_FILE"
  echo "READY $N8N_URL"
  # Until stdin closes; a signal interrupts the read and runs the trap. The
  # line "stop" stops n8n ("STOPPED"), "kill" kills it as a crash or a power
  # loss would (KILL: nothing is saved on the way out; "STOPPED"), "start"
  # starts it again on the same port and data ("STARTED PID", or
  # "START-FAILED").
  port=${N8N_URL##*:}
  while read -r line; do
    case $line in
      stop) n8n_env_stop; echo STOPPED ;;
      kill) kill -KILL "$N8N_PID" 2>/dev/null; wait "$N8N_PID" 2>/dev/null; N8N_PID=""; echo STOPPED ;;
      start) if _n8n_env_launch "$port"; then echo "STARTED $N8N_PID"; else echo START-FAILED; fi ;;
    esac
  done
  n8n_env_stop
  exit 0
fi
