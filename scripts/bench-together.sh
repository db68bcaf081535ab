#!/usr/bin/env bash
# Live streams benchmark (issue 28; not a test): three release `rivers serve` processes on one
# PostgreSQL, STREAMS (200) streams of one app spread over them, SAVES (20) saves through the
# first; prints the delivery p50/p99 (target p99 < 250 ms) and each process's memory per stream.
# BENCH_BIN=dir uses a `rivers` already built there instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
. scripts/bench-lib.sh
bench_setup together
token=$("$bin/rivers" app create bench --quiet)
pids=()
urls=()
for i in 0 1 2; do
  port=$((app_port + i))
  HOST=127.0.0.1 PORT=$port LOG_LEVEL=error "$bin/rivers" serve >"$tmp/server$i.log" 2>&1 &
  pids+=($!)
  urls+=("http://127.0.0.1:$port")
done
server_pid="${pids[*]}"
for i in 0 1 2; do python3 scripts/wait-for-server.py "${urls[$i]}" "${pids[$i]}" "$tmp/server$i.log"; done
curl -fs "${urls[0]}/api/v1/apps/bench/families" -H "Authorization: Bearer $token" --json '{"id": "FAMILY_1",
  "reference_size": {"width": 320, "height": 568}, "cell_styles": [{"id": "LIST_1", "columns": 1, "height": 80}]}' >/dev/null
SERVER_PIDS="${pids[*]}" python3 scripts/bench-together.py "$token" bench "${urls[@]}"
