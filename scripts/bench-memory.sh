#!/usr/bin/env bash
# Memory benchmark (issue 26; not a test): an app filled to the hardening caps (screens of about
# 248 KB as stored, each mostly a free-form array of small numbers, the costliest shape to parse,
# until the app's 2 MB cap refuses one), then a fresh release `rivers serve` read by four clients
# at once: draft.json, then the screen list. Prints the peak RSS growth over the server's RSS
# before the reads, per byte the app stores (target for draft.json: ≤ 5 bytes per stored byte).
# BENCH_BIN=dir uses a `rivers` already built there instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
. scripts/bench-lib.sh
bench_setup memory
token=$("$bin/rivers" app create bench --quiet | tail -1)
python3 scripts/bench-memory.py --bin "$bin/rivers" --port "$app_port" --token "$token" --slug bench --log "$tmp/server.log" "$@"
