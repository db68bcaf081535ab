#!/usr/bin/env bash
# Many-apps benchmark (issue 13; not a test): a release `rivers serve` over 10,000 published apps.
#
#   make bench-apps            BENCH_APPS=10000 (default), DOCUMENT_CACHE_BYTES as the server's
#
# Seeds one app with the document of `make bench-publish` (60 root screens × 10 grids with headers,
# about 200 KB), publishes it through the API, then copies that app and its version in SQL until
# there are BENCH_APPS apps (each with its own slug). Then it starts a fresh server and prints,
# measured in this run (scripts/bench-apps.py):
#   - ready: seconds from start to `GET /health/ready` answering 200 (target < 2 s);
#   - RSS of the server when ready, and after every app has been fetched once (target < 300 MB);
#   - a cold app's first request: median and 99th percentile over 200 apps not fetched before
#     (target < 20 ms);
#   - a hot app's requests per second alone, and while another client fetches every cold app
#     once (target: the hot app unaffected; the ratio is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
APPS=${BENCH_APPS:-10000}

. scripts/bench-lib.sh
bench_setup apps
swift build -c release --product RiversPublishBench 2>&1 | tail -1
token=$("$bin/rivers" app create seed --quiet)
"$bin/RiversPublishBench" --emit-document "$tmp/source.json" --screens 60 --grid >/dev/null

bench_serve
api="http://127.0.0.1:$app_port/api/v1/apps/seed"
curl -fs "$api/import" -H "Authorization: Bearer $token" --json @"$tmp/source.json" >/dev/null
curl -fs -X POST "$api/publish" -H "Authorization: Bearer $token" >/dev/null
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=

echo "== seeding $APPS apps (SQL copies of one published version)"
start=$(date +%s.%N)
psql -q "$DATABASE_URL" -v ON_ERROR_STOP=1 -v apps="$APPS" <<'SQL'
CREATE TEMP TABLE seed AS SELECT id, current_version FROM apps WHERE slug = 'seed';
INSERT INTO apps (id, slug, name, current_version)
  SELECT gen_random_uuid(), 'app-' || n, 'App ' || n, (SELECT current_version FROM seed)
  FROM generate_series(2, :apps) AS n;
INSERT INTO versions (app_id, number, document, sha256, gzip, published_by, note)
  SELECT a.id, v.number, v.document, v.sha256, v.gzip, v.published_by, v.note
  FROM apps a, versions v, seed
  WHERE a.slug LIKE 'app-%' AND v.app_id = seed.id AND v.number = seed.current_version;
ANALYZE;
SQL
echo "seeded in $(echo "$(date +%s.%N) - $start" | bc) s; database $(psql -tA "$DATABASE_URL" -c "SELECT pg_size_pretty(pg_database_size(current_database()))")"

python3 scripts/bench-apps.py --bin "$bin/rivers" --port "$app_port" --apps "$APPS" --log "$tmp/server.log"
