#!/usr/bin/env bash
# make test-contract: schemathesis with every phase (the coverage phase of every operation too) for
# seeds 1234 and 777, each on a database of its own in a throwaway PostgreSQL (removed afterwards).
# `make test` runs the same two seeds with the coverage phase of POST and PUT only (seed 1234).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="/opt/swift/usr/bin:$PATH"
tmp=$(mktemp -d /tmp/rivers-contract.XXXXXX)
chmod 755 "$tmp"
port=${RIVERS_TEST_PG_PORT:-$((55000 + RANDOM % 5000))}
cleanup() { scripts/pg.sh stop "$tmp/pg" || true; rm -rf "$tmp"; }
trap cleanup EXIT
for db in contract1234 contract777; do PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$port" "$db"; done
swift build
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" contract1234) ST_SEED=1234 scripts/schemathesis.sh
DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" contract777) ST_SEED=777 scripts/schemathesis.sh
