#!/usr/bin/env bash
# Schemathesis against the served OpenAPI document: every operation, every check, a fixed seed.
#
#   DATABASE_URL=postgres://… scripts/schemathesis.sh [extra `st run` arguments]
#
# Needs DATABASE_URL (a running, throwaway PostgreSQL: the run adds an app to it) and the built
# server at $(swift build --show-bin-path)/rivers, or RIVERS_BIN. Installs schemathesis into the
# venv .venv-test/ when it is missing. Migrates, creates an app with the CLI, starts the server on
# a free 127.0.0.1 port, seeds the app through the API (Tests/schemathesis/seed.py: families,
# a layout, a home and a connected screen, a screen plugin, a published version), then runs
# `st run` on http://127.0.0.1:PORT/api/openapi.json with the app's token, with the settings in
# Tests/schemathesis/schemathesis.toml (a fixed seed, deterministic, a bounded number of examples)
# and the hooks in Tests/schemathesis/hooks.py, then checks that schemathesis tested every
# operation of the document but the toml's deliberate exclusions
# (Tests/schemathesis/check_selection.py; skipped when extra arguments narrow the run). Exits
# non-zero on any failure; stops the server on exit. ST_SEED picks the seed (default 1234; `make
# test` runs 1234 and 777), ST_MAX_EXAMPLES the examples per operation (default: the toml's),
# ST_JUNIT a path to keep schemathesis' JUnit report at, ST_COVERAGE=writes adds the coverage phase
# of every POST, PUT and PATCH (a second run, checked the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
name=schemathesis
. "$root/scripts/test-lib.sh"
: "${DATABASE_URL:?DATABASE_URL must point at a running throwaway PostgreSQL}"

# Schemathesis, in the shared test venv.
venv="$root/.venv-test"
ensure_venv "$venv" 'import schemathesis' schemathesis

find_server_binary

log=$(mktemp /tmp/rivers-schemathesis-server.XXXXXX)
work=$(mktemp -d /tmp/rivers-schemathesis.XXXXXX)
server=
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$log" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

LOG_LEVEL=warning "$RIVERS_BIN" migrate >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
slug="st-$(date +%s)-$RANDOM"
token=$(LOG_LEVEL=warning "$RIVERS_BIN" app create "$slug" --quiet 2>>"$log") || { cat "$log" >&2; exit 1; }
# A spare app for DELETE /api/v1/apps/{app} to archive (see the toml).
spare_app="$slug-spare"
spare_token=$(LOG_LEVEL=warning "$RIVERS_BIN" app create "$spare_app" --quiet 2>>"$log") || { cat "$log" >&2; exit 1; }
url="http://127.0.0.1:$port"

# WEBHOOK_PRIVATE_NETWORKS=allow: the seeded webhooks call a loopback port (no other address is
# sure to exist here), so that the webhook routes answer for a real webhook and delivery.
HOST=127.0.0.1 PORT=$port PUBLIC_DIR="$root/Public" PUBLIC_BASE_URL="$url" LOG_LEVEL=warning WEBHOOK_PRIVATE_NETWORKS=allow \
  "$RIVERS_BIN" serve --migrate >>"$log" 2>&1 &
server=$!

python3 "$root/scripts/wait-for-server.py" "$url" "$server" "$log"

# Seed the app; the ids it prints become RIVERS_* variables the toml's parameters use.
seeded=$(python3 "$root/Tests/schemathesis/seed.py" "$url" "$token" "$slug") || { tail -n 40 "$log" >&2; exit 1; }
while IFS='=' read -r name value; do
  case "$name" in RIVERS_*) export "$name=$value" ;; esac
done <<<"$seeded"
export RIVERS_APP="$slug" RIVERS_URL="$url" RIVERS_TOKEN="$token"
export RIVERS_SPARE_APP="$spare_app" RIVERS_SPARE_APP_TOKEN="$spare_token"

seed=${ST_SEED:-1234}
args=()
if [ -n "${ST_MAX_EXAMPLES:-}" ]; then args+=(--max-examples "$ST_MAX_EXAMPLES"); fi
# ST_PHASES: the phases to run (schemathesis' names, comma-separated); all of them by default.
if [ -n "${ST_PHASES:-}" ]; then args+=(--phases "$ST_PHASES"); fi
status=0
start=$(date +%s)
# Hypothesis keeps its caches in the venv, not in the work tree.
HYPOTHESIS_STORAGE_DIRECTORY="$venv/hypothesis" PYTHONDONTWRITEBYTECODE=1 "$venv/bin/st" --config-file "$root/Tests/schemathesis/schemathesis.toml" run \
  "$url/api/openapi.json" \
  --header "Authorization: Bearer $token" \
  --checks all \
  --seed "$seed" --generation-deterministic \
  --no-color \
  --report junit --report-junit-path "$work/junit.xml" \
  "${args[@]}" "$@" || status=$?
echo "schemathesis: seed $seed finished in $(( $(date +%s) - start ))s with status $status" >&2
# ST_COVERAGE=writes: then the coverage phase (boundary values of every schema keyword: a string
# at its maxLength and one longer, each enum value and one outside, ...) for every POST, PUT and
# PATCH, on the same app: so the server's own bounds, written where each body is read, are held to
# the document's. It is deterministic (no seed changes what it sends), so one seed's run is
# enough; `make test` runs it with seed 1234.
coverage_status=0
if [ "${ST_COVERAGE:-}" = writes ] && [ $# = 0 ]; then
  start=$(date +%s)
  HYPOTHESIS_STORAGE_DIRECTORY="$venv/hypothesis" PYTHONDONTWRITEBYTECODE=1 "$venv/bin/st" --config-file "$root/Tests/schemathesis/schemathesis.toml" run \
    "$url/api/openapi.json" \
    --header "Authorization: Bearer $token" \
    --checks all --generation-deterministic --no-color \
    --phases coverage --include-method POST --include-method PUT --include-method PATCH \
    --report junit --report-junit-path "$work/coverage.xml" || coverage_status=$?
  echo "schemathesis: the coverage phase of every POST, PUT and PATCH finished in $(( $(date +%s) - start ))s with status $coverage_status" >&2
  "$venv/bin/python" "$root/Tests/schemathesis/check_selection.py" "$url/api/openapi.json" \
    "$root/Tests/schemathesis/schemathesis.toml" "$work/coverage.xml" POST,PUT,PATCH || coverage_status=1
fi
# Every operation of the served document ran, but the toml's deliberate exclusions: counted from
# what schemathesis reported testing, not from the toml's filters.
if [ -n "${ST_JUNIT:-}" ]; then cp "$work/junit.xml" "$ST_JUNIT" 2>/dev/null || true; fi
if [ $# = 0 ]; then
  "$venv/bin/python" "$root/Tests/schemathesis/check_selection.py" "$url/api/openapi.json" \
    "$root/Tests/schemathesis/schemathesis.toml" "$work/junit.xml" || status=1
fi
if [ "$coverage_status" != 0 ]; then status=$coverage_status; fi
if [ "$status" != 0 ]; then
  echo "schemathesis: server log (last lines):" >&2
  tail -n 40 "$log" >&2 || true
fi
exit "$status"
