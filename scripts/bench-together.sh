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
if [ -n "${BENCH_BIN:-}" ]; then
  # The same set-up as bench_setup, with the binary given.
  bin=$BENCH_BIN
  tmp=$(mktemp -d /tmp/rivers-bench-together.XXXXXX); chmod 755 "$tmp"
  db_port=$((41000 + RANDOM % 2000)); app_port=$((43000 + RANDOM % 2000)); server_pid=
  trap bench_cleanup EXIT
  PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$db_port" rivers >/dev/null
  export DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$db_port" rivers)
  "$bin/rivers" migrate >/dev/null
else
  bench_setup together
fi
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
