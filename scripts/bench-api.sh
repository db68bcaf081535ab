#!/usr/bin/env bash
# API reads benchmark (issue 13; not a test): requests per second of a release `rivers serve`,
# wrk with 1 thread × 8 keep-alive connections, the token in `Authorization`:
#   - GET …/screens/{id}/preview of a 20-component screen (lists and 2-column grids, item limit
#     50), as JSON and as SVG (target ≥ 1,000 r/s each);
#   - GET …/screens/{id} of the same screen (target ≥ 3,000 r/s);
#   - GET /health/live, the server's floor on this machine, printed beside them for scale.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
DURATION=${BENCH_SECONDS:-8}

. scripts/bench-lib.sh
command -v wrk >/dev/null || bench_install wrk
bench_setup api
token=$("$bin/rivers" app create bench --quiet)
bench_serve
api="http://127.0.0.1:$app_port/api/v1/apps/bench"
auth="Authorization: Bearer $token"
curl -fs "$api/families" -H "$auth" --json '{"id": "FAMILY_1", "reference_size": {"width": 320, "height": 568},
  "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10}, "interitem_spacing": 10, "line_spacing": 10,
  "cell_styles": [{"id": "LIST_1", "columns": 1, "height": 80}, {"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778}]}' >/dev/null
screen=$(python3 - <<'PY'
import json
components = []
for i in range(20):
    grid = i % 2 == 1
    components.append({"component_type": "grid" if grid else "list", "cell_styles": ["GRID_1" if grid else "LIST_1"],
                       "rules": {"item_limit": 50}, "data": {"source": f"feed-{i}", "type": "APPLICASTER_COLLECTION"}})
print(json.dumps({"name": "Home", "family": "FAMILY_1", "home": True, "ui_components": components}))
PY
)
id=$(curl -fs "$api/screens" -H "$auth" --json "$screen" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')

rps() { wrk -t1 -c8 -d"${DURATION}s" -H "$auth" "$@" | awk '/Requests\/sec/{print $2}'; }
preview_json=$(rps "$api/screens/$id/preview?device=phone-375x667")
preview_svg=$(rps "$api/screens/$id/preview?device=phone-375x667&format=svg")
get_screen=$(rps "$api/screens/$id")
live=$(rps "http://127.0.0.1:$app_port/health/live")
json_bytes=$(curl -fs "$api/screens/$id/preview?device=phone-375x667" -H "$auth" | wc -c)
echo "== API reads, wrk 1 thread × 8 connections, ${DURATION}s each, server and wrk on this machine's cores"
printf "%-44s %10s %8s\n" "" "r/s" "target"
printf "%-44s %10s %8s\n" "preview, JSON (20 components, ${json_bytes} bytes)" "$preview_json" "1000"
printf "%-44s %10s %8s\n" "preview, SVG" "$preview_svg" "1000"
printf "%-44s %10s %8s\n" "GET a screen" "$get_screen" "3000"
printf "%-44s %10s %8s\n" "GET /health/live (the floor, for scale)" "$live" "-"
