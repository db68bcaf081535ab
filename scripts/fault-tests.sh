#!/usr/bin/env bash
# The fault suite (issue 15, "Failover, tested here"): three `rivers serve` processes on 127.0.0.1
# behind Debian's nginx (deploy/nginx/rivers.conf: retries across processes, a cache for /rivers/),
# on a PostgreSQL of the suite's own, which the tests stop and start. make test-faults, and the
# last step of make test.
#
#   scripts/fault-tests.sh [pytest arguments]         e.g. -k publish
#
# Scenarios (Tests/faults/, one pytest test each): a process killed (SIGKILL) and started again
# under load on the public URL; PostgreSQL restarted under reads, writes and publishes; a process
# killed during a burst of PATCHes; a publish reaching every process within a second; a process
# started while PostgreSQL is down; PostgreSQL frozen under writes; an app's live stream through
# nginx and on another process getting a save at once, and its replay after a reconnect.
#
# Settings (environment):
#   RIVERS_BIN            the server (default: $(swift build --show-bin-path)/rivers; nothing is built)
#   FAULT_LOAD_SECONDS    seconds of load on the public URL around the kill (default 30, as in the
#                         issue; 10 for a quicker run); FAULT_FULL=1 sets 30 whatever it says
#   FAULT_OUTAGE_SECONDS  how long PostgreSQL stays down in the restart scenario (default 5)
#   FAULT_SUITE_TIMEOUT   seconds after which the whole run is stopped (default 480)
#
# Never uses the DATABASE_URL of `make test`: the suite's cluster is restarted by the tests, so it
# has its own, in a temporary folder, on a port of its own. Everything started here (PostgreSQL,
# the rivers processes, nginx) is stopped on exit, also on failure or interruption: the tests stop
# what they start (pytest fixtures), and this script kills whatever they recorded in $tmp/pids.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
name=fault-tests
. "$root/scripts/test-lib.sh"

[ -x /usr/lib/postgresql/15/bin/initdb ] || scripts/install-deps.sh   # PostgreSQL 15, when missing
venv="$root/.venv-test"
ensure_venv "$venv" 'import requests, pytest' pytest requests

find_server_binary

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "$name: installing nginx" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null 2>&1 ||
    { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null; }
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

tmp=$(mktemp -d /tmp/rivers-faults.XXXXXX)
# Traversable by the postgres user (pg.sh runs the cluster as postgres when we are root) and by
# nginx's workers (nobody).
chmod 755 "$tmp"
mkdir -p "$tmp/pids"
pg_port=${FAULT_PG_PORT:-$((50000 + RANDOM % 5000))}

# Kills a process group the tests recorded ($tmp/pids/NAME.pid, the group leader's pid), but only
# while that pid is still the program we started (never a pid reused by someone else).
kill_recorded() {
  local file pid exe
  for file in "$tmp"/pids/*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file" 2>/dev/null || true)
    [ -n "$pid" ] || continue
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
    exe=${exe% (deleted)}   # the binary may have been rebuilt meanwhile
    case "$exe" in
      "$(readlink -f "$RIVERS_BIN")"|"$(readlink -f "$nginx_bin")") kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true ;;
    esac
  done
}
runner=
cleanup() {
  # pytest first (interrupted: its fixtures do not run), then whatever it had started.
  if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then
    kill -TERM "$runner" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$runner" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$runner" 2>/dev/null || true
  fi
  kill_recorded
  scripts/pg.sh stop "$tmp/pg" || true
  if [ "${FAULT_KEEP:-}" = 1 ]; then echo "$name: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$pg_port" rivers
export DATABASE_URL
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$pg_port" rivers)

# The schema and an app with a token, with the CLI (the tests seed the rest through the API).
log="$tmp/cli.log"
LOG_LEVEL=warning "$RIVERS_BIN" migrate >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
slug="faults-$(date +%s)-$RANDOM"
token=$(LOG_LEVEL=warning "$RIVERS_BIN" app create "$slug" --quiet 2>>"$log") || { cat "$log" >&2; exit 1; }

if [ "${FAULT_FULL:-}" = 1 ]; then FAULT_LOAD_SECONDS=30; fi
export FAULT_LOAD_SECONDS=${FAULT_LOAD_SECONDS:-30}
export FAULT_DIR="$tmp" FAULT_PG_DIR="$tmp/pg" FAULT_PG_PORT="$pg_port" FAULT_NGINX="$nginx_bin"
export RIVERS_BIN RIVERS_APP="$slug" RIVERS_TOKEN="$token" RIVERS_ROOT="$root" PYTHONDONTWRITEBYTECODE=1

status=0
# The tests bound every wait; this bounds the whole run, in case something still hangs. In the
# background, so that an interruption reaches the trap at once (bash runs traps between commands).
timeout --kill-after=20 "${FAULT_SUITE_TIMEOUT:-480}" \
  "$venv/bin/python" -m pytest "$root/Tests/faults" -p no:cacheprovider -q -rA --tb=short "$@" &
runner=$!
wait "$runner" || status=$?
runner=
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
  echo "$name: the suite did not finish within ${FAULT_SUITE_TIMEOUT:-480} s and was stopped" >&2
fi
if [ "$status" != 0 ]; then
  for f in "$tmp"/logs/rivers-*.log; do
    [ -e "$f" ] || continue
    echo "$name: $(basename "$f"), its last lines above info:" >&2
    grep -vE '^[0-9T:+-]+ (trace|debug|info) ' "$f" | tail -n 8 >&2 || true
  done
fi
exit "$status"
