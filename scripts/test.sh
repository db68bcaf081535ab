#!/usr/bin/env bash
# make test: the fast tier first (make test-fast: no database), the checks of deploy/, then a
# throwaway PostgreSQL in a temporary folder (removed afterwards, also on failure) and the whole
# suite against it: the Swift suites, the hostile-client suite, schemathesis, then the editor's
# browser tests; last, the fault suite (its own database).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
# The fast tier first, with no database (make test-fast): the editor's pure modules (node's own
# test runner, no npm packages) and the Swift suites that need no PostgreSQL.
RIVERS_SKIP_BUILD=1 scripts/test-fast.sh
# deploy/: the Kubernetes manifests, the Dockerfile, nginx and compose files (no database, no build).
scripts/deploy-checks.sh
tmp=$(mktemp -d /tmp/rivers-test.XXXXXX)
chmod 755 "$tmp"
port=${RIVERS_TEST_PG_PORT:-$((55000 + RANDOM % 5000))}
cleanup() { scripts/pg.sh stop "$tmp/pg" || true; rm -rf "$tmp"; }
trap cleanup EXIT
PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$port" postgres
export DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" postgres)
# Every response the Swift API tests receive is logged here (TestSupport.swift's ResponseLog), then
# checked against the OpenAPI document: a drift between the API and its document fails the suite.
export RIVERS_API_RESPONSE_LOG="$tmp/api-responses.jsonl"
: >"$RIVERS_API_RESPONSE_LOG"
name=test
. scripts/test-lib.sh
ensure_venv "$PWD/.venv-test" 'import jsonschema_rs' jsonschema-rs
swift test --skip-build "$@"
.venv-test/bin/python scripts/validate-api-responses.py "$RIVERS_API_RESPONSE_LOG"
# The suites below each get a database of their own on this server: they all sign in from
# 127.0.0.1, and failed sign-ins are throttled per address, so one suite's deliberate failures
# must not throttle the next.
for db in hostile schemathesis schemathesis777 browser; do PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$port" "$db"; done
# Hostile clients against a real `rivers serve`: every request that once crashed, stalled or
# exhausted the server gets a small 4xx problem, fast, and the process stays alive and small.
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" hostile) scripts/hostile-tests.sh
# The API against its own OpenAPI document (schemathesis: every operation, all checks, seeded
# data), with two fixed seeds, each on a database and an app of its own; each run fails when it
# tested fewer operations than the document has (Tests/schemathesis/check_selection.py).
# Seed 1234 then runs the coverage phase for every POST, PUT and PATCH (deterministic: the same for
# any seed; about 5 minutes here). The coverage phase of every operation runs in `make test-contract`.
export ST_PHASES=${ST_PHASES:-examples,fuzzing,stateful}
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" schemathesis) ST_SEED=1234 ST_COVERAGE=writes scripts/schemathesis.sh
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" schemathesis777) ST_SEED=777 scripts/schemathesis.sh
unset ST_PHASES
# The editor, in a real browser against a real server.
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" browser) scripts/browser-tests.sh
# Failover: three servers behind nginx, killed and restarted under load, on a PostgreSQL of the
# suite's own that it stops and starts (not the one above).
scripts/fault-tests.sh
