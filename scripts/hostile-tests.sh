#!/usr/bin/env bash
# Hostile-client tests: a real server and database attacked with malformed, oversized, slow and
# tricky requests, in Python (pytest + requests, raw sockets where HTTP libraries would be polite).
#
#   DATABASE_URL=postgres://… scripts/hostile-tests.sh [pytest arguments]
#
# Needs DATABASE_URL (a running, throwaway PostgreSQL: the tests add apps to it) and the built
# server at $(swift build --show-bin-path)/rivers, or RIVERS_BIN. Sets up pytest + requests in the
# venv .venv-test/, migrates, creates a fresh app and token with the CLI, starts the server on a
# free port of 127.0.0.1 with short timeouts, runs pytest on Tests/hostile/, and stops the server on
# exit. Every test also checks afterwards that the server is alive, answering and under 300 MB;
# when it is not, the suite restarts it (RIVERS_PIDFILE names the current process) so that one
# crash is reported by the test that caused it instead of failing every test after it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
name=hostile-tests
. "$root/scripts/test-lib.sh"
: "${DATABASE_URL:?DATABASE_URL must point at a running throwaway PostgreSQL}"

# pytest and requests, in the test venv.
venv="$root/.venv-test"
ensure_venv "$venv" 'import requests, pytest' pytest requests

find_server_binary

# Short limits, so that slow-client tests finish quickly; the tests read them from the environment.
export HEADER_TIMEOUT=2 BODY_TIMEOUT=2 IDLE_TIMEOUT=5 MAX_CONNECTIONS=64
# Connections on event loops of their own (a test counts them).
export EVENT_LOOP_THREADS=3
# As deploy/ runs it: behind one proxy, whose X-Forwarded-For names the client (the sign-in tests
# play clients at many addresses).
export TRUSTED_PROXY_HOPS=1
# A crash's backtrace (in the server log) shows the crashed thread only: it takes seconds instead of
# tens of seconds, during which swift-backtrace holds the listening socket.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-threads=crashed,registers=none,images=none}"

log=$(mktemp /tmp/rivers-hostile-server.XXXXXX)
pidfile=$(mktemp /tmp/rivers-hostile-pid.XXXXXX)
# The CLI's chatter goes to the log, shown only when something fails.
LOG_LEVEL=warning "$RIVERS_BIN" migrate >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log" "$pidfile"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
slug="hostile-$(date +%s)-$RANDOM"
token=$(LOG_LEVEL=warning "$RIVERS_BIN" app create "$slug" --quiet 2>>"$log") || { cat "$log" >&2; rm -f "$log" "$pidfile"; exit 1; }
url="http://127.0.0.1:$port"

# The same settings are used by the tests when they restart a server that died (see conftest.py).
export HOST=127.0.0.1 PORT=$port PUBLIC_DIR="$root/Public" PUBLIC_BASE_URL="$url" LOG_LEVEL=warning
"$RIVERS_BIN" serve --migrate >>"$log" 2>&1 &
server=$!
echo "$server" >"$pidfile"
cleanup() {
  local current helpers others pid
  current=$(cat "$pidfile" 2>/dev/null || true)
  # A server that crashed has a swift-backtrace child holding its socket: stop it too.
  helpers=$(cat /proc/"$server"/task/*/children /proc/"${current:-$server}"/task/*/children 2>/dev/null || true)
  for pid in $server $current $helpers; do
    kill "$pid" 2>/dev/null || true
  done
  wait "$server" 2>/dev/null || true
  # A server restarted by the tests is not our child: wait for it by polling, then force it.
  others=$(echo "$current" $helpers | tr ' ' '\n' | grep -vx "$server" || true)
  for pid in $others; do
    for _ in $(seq 50); do grep -qs '^State:[[:space:]]*[RSDT]' /proc/"$pid"/status || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$log" "$pidfile"
}
trap cleanup EXIT INT TERM

python3 "$root/scripts/wait-for-server.py" "$url" "$server" "$log"

export RIVERS_URL="$url" RIVERS_TOKEN="$token" RIVERS_APP="$slug" RIVERS_PID="$server" RIVERS_BIN DATABASE_URL
export RIVERS_PIDFILE="$pidfile" RIVERS_LOG="$log" PYTHONDONTWRITEBYTECODE=1
status=0
"$venv/bin/python" -m pytest "$root/Tests/hostile" -p no:cacheprovider -q -rs --tb=short "$@" || status=$?
if [ "$status" != 0 ]; then
  echo "hostile-tests: server log (last lines):" >&2
  tail -n 40 "$log" >&2 || true
fi
exit "$status"
