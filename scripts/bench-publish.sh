#!/usr/bin/env bash
# Publishing benchmark (not a test): prints figures, measured side by side in one run.
#  1. document generation for an app of 200 screens × 20 components (RiversPublishBench);
#  1b. the public byte path's own code per request, without sockets (RiversPublicPathBench): the
#     kernel's share, most of an answer's time, is left out, so a change to our code shows there
#     first (nanoseconds, steadier than the rates below); then what one publish costs the index
#     of a process serving 1,000, 10,000 and 100,000 apps (the same for all when a publish copies
#     only the shards it changes).
#  2. requests per second of the public URL from a release build against nginx serving the same
#     bytes as a static file (gzip_static, open_file_cache, sendfile), with wrk (1 thread, 32
#     keep-alive connections, Accept-Encoding: gzip). The document is issue 13's: 60 root screens ×
#     10 grid components with headers (about 200 KB, about 19 KB gzip). Measured: gzip 200, the 304
#     path (If-None-Match), both again on mixed connections (each connection's first request an
#     API call, as on a pooled proxy connection), and a 404 for an unknown slug.
#  3. HEAD, with ab (apache2-utils; 32 keep-alive connections): wrk's parser waits for the body a
#     HEAD answer announces but never sends. ab measures our 304 too, so that HEAD and 304 are
#     compared through the same client.
#     For scale, the 304 is also asked of RiversNIOFloor: SwiftNIO answering our 304's bytes to
#     every request head, with nothing else to do (the most a SwiftNIO server can reach here).
#     Beside each rate, each server's CPU time per request in the same rounds (from /proc): a
#     neighbour that takes the core away lowers a rate but not the time an answer costs.
#     Each fresh figure is also given against nginx sending the same fields as ours (add_header),
#     the same answer field for field: ours are about four times the size of nginx's own.
#  4. (for information) gzip 200 and 304 again against a second pair of servers with their
#     defaults (a worker or event loop per core) and no pinning.
# Parts 2 and 3 give each server the same share of the machine: one nginx worker, one rivers event
# loop (EVENT_LOOP_THREADS=1), both on the last core, the client on the others (BENCH_PIN=0 leaves
# placement to the scheduler). On a 2-core machine the client needs a core of its own; a server
# with a thread per core then competes with it, and the figures swing with the scheduler.
# BENCH_CDN_TAG_HEADERS (default both) is given to our servers as CDN_TAG_HEADERS: `none` measures
# the answer without the CDN's tag fields (the closest to nginx's bare one).
# Targets: generation under 50 ms; gzip 200 and 304 each ≥ 0.9 of nginx's, also mixed; 304 ≥ our 200;
# HEAD as fast as 304.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v bc >/dev/null || need+=(bc)
command -v ab >/dev/null || need+=(apache2-utils)
[ -x /usr/sbin/nginx ] || need+=(nginx-light)
. scripts/bench-lib.sh
bench_install ${need[@]+"${need[@]}"}
DURATION=${BENCH_SECONDS:-4}
CONNECTIONS=${BENCH_CONNECTIONS:-32}

swift build -c release --product rivers 2>&1 | tail -1
swift build -c release --product RiversPublishBench 2>&1 | tail -1
swift build -c release --product RiversNIOFloor 2>&1 | tail -1
swift build -c release --product RiversPublicPathBench 2>&1 | tail -1
bin=$(swift build -c release --show-bin-path)

echo "== 1. generation"
"$bin/RiversPublishBench"

echo "== 1b. the public byte path's own code, no socket (RiversPublicPathBench, best of 5 × 200,000 requests)"
"$bin/RiversPublicPathBench"

tmp=$(mktemp -d /tmp/rivers-bench.XXXXXX); chmod 755 "$tmp"
port=$((46000 + RANDOM % 1000)); app_port=$((47000 + RANDOM % 1000)); nginx_port=$((48000 + RANDOM % 1000))
default_app_port=$((app_port + 1000)); default_nginx_port=$((nginx_port + 1000)); fields_nginx_port=$((nginx_port + 3000))
cores=$(nproc)
# Where servers and clients run: the last core for the servers, the others for the clients.
if [ "${BENCH_PIN:-1}" != 0 ] && [ "$cores" -ge 2 ]; then
  on_server_core=(taskset -c "$((cores - 1))"); on_client_cores=(taskset -c "0-$((cores - 2))")
  placement="servers on core $((cores - 1)), clients on cores 0-$((cores - 2))"
else
  on_server_core=(); on_client_cores=(); placement="placement left to the scheduler"
fi
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "${default_server_pid:-}" ] && kill "$default_server_pid" 2>/dev/null || true
  [ -n "${floor_pid:-}" ] && kill "$floor_pid" 2>/dev/null || true
  [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true
  [ -f "$tmp/nginx-default.pid" ] && kill "$(cat "$tmp/nginx-default.pid")" 2>/dev/null || true
  scripts/pg.sh stop "$tmp/pg" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$port" rivers
export DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$port" rivers)
"$bin/rivers" migrate >/dev/null
token=$("$bin/rivers" app create bench --quiet)
"$bin/RiversPublishBench" --emit-document "$tmp/source.json" --screens "${BENCH_SCREENS:-60}" --grid
export CDN_TAG_HEADERS=${BENCH_CDN_TAG_HEADERS:-both}
EVENT_LOOP_THREADS=1 HOST=127.0.0.1 PORT=$app_port LOG_LEVEL=error ${on_server_core[@]+"${on_server_core[@]}"} \
  "$bin/rivers" serve >"$tmp/server.log" 2>&1 &
server_pid=$!
HOST=127.0.0.1 PORT=$default_app_port LOG_LEVEL=error "$bin/rivers" serve >"$tmp/server-default.log" 2>&1 &
default_server_pid=$!
for p in $app_port $default_app_port; do
  for _ in $(seq 50); do curl -fs "http://127.0.0.1:$p/health" >/dev/null && break; sleep 0.2; done
done
api="http://127.0.0.1:$app_port/api/v1/apps/bench"
curl -fs "$api/import" -H "Authorization: Bearer $token" --json @"$tmp/source.json" >/dev/null
curl -fs -X POST "$api/publish" -H "Authorization: Bearer $token" >/dev/null
url="http://127.0.0.1:$app_port/rivers/bench/rivers.json"
curl -fs "$url" -o "$tmp/rivers.json"
etag=$(curl -fsI "$url" -H 'Accept-Encoding: gzip' | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')

# nginx: the same bytes, precompressed, keep-alive; one worker (as rivers has one event loop),
# and a second nginx with a worker per core for part 4. The one worker also answers on a second
# port with the fields our answers carry that nginx does not send itself (add_header: caching,
# CORS, the version, the CDN's tags and a request id): the same answer, field for field. Ours is
# about 760 bytes for a 304 against nginx's bare 190, and the kernel's share grows with it.
our_fields=$(curl -fsI "$url" -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" | tr -d '\r' |
  awk 'NR > 1 && index($0, ": ") > 0 {
    name = substr($0, 1, index($0, ": ") - 1); value = substr($0, index($0, ": ") + 2)
    if (tolower(name) !~ /^(date|etag|x-request-id|content-length|content-type|content-encoding|connection|server)$/)
      printf "    add_header %s \"%s\";\n", name, value }')
mkdir -p "$tmp/www/rivers/bench" "$tmp/nginx-tmp"
cp "$tmp/rivers.json" "$tmp/www/rivers/bench/rivers.json"
gzip -9 -k "$tmp/www/rivers/bench/rivers.json"
nginx_conf() { # workers port pid-file [port of the server that adds our fields]
  cat <<CONF
worker_processes $1;
pid $3;
error_log $tmp/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on; tcp_nopush on; keepalive_requests 100000;
  default_type application/json;
  gzip_static on;
  etag on;
  open_file_cache max=1000 inactive=60s; open_file_cache_valid 60s;
  client_body_temp_path $tmp/nginx-tmp; proxy_temp_path $tmp/nginx-tmp; fastcgi_temp_path $tmp/nginx-tmp;
  uwsgi_temp_path $tmp/nginx-tmp; scgi_temp_path $tmp/nginx-tmp;
  server { listen 127.0.0.1:$2; root $tmp/www; }
$(if [ -n "${4:-}" ]; then printf '  server {\n    listen 127.0.0.1:%s; root %s;\n%s\n    add_header X-Request-Id $request_id;\n  }\n' "$4" "$tmp/www" "$our_fields"; fi)
}
CONF
}
nginx_conf 1 "$nginx_port" "$tmp/nginx.pid" "$fields_nginx_port" >"$tmp/nginx.conf"
nginx_conf auto "$default_nginx_port" "$tmp/nginx-default.pid" >"$tmp/nginx-default.conf"
${on_server_core[@]+"${on_server_core[@]}"} /usr/sbin/nginx -c "$tmp/nginx.conf"
/usr/sbin/nginx -c "$tmp/nginx-default.conf"
nginx_url="http://127.0.0.1:$nginx_port/rivers/bench/rivers.json"
nginx_etag=$(curl -fsI "$nginx_url" -H 'Accept-Encoding: gzip' | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
fields_url="http://127.0.0.1:$fields_nginx_port/rivers/bench/rivers.json"
# The same file, the same ETag; checked: every field of ours is there.
for field in $(echo "$our_fields" | awk '{print $2}') X-Request-Id; do
  curl -fsI "$fields_url" -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" | grep -qi "^$field: " ||
    { echo "nginx with our fields does not send $field" >&2; exit 1; }
done
echo "   nginx's 304: $(curl -fsi "$nginx_url" -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" | wc -c) bytes; with our fields: $(curl -fsi "$fields_url" -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" | wc -c); ours: $(curl -fsi "$url" -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" | wc -c)"
default_url="http://127.0.0.1:$default_app_port/rivers/bench/rivers.json"
default_nginx_url="http://127.0.0.1:$default_nginx_port/rivers/bench/rivers.json"
curl -fs "$default_url" -o /dev/null # the document is in that process's memory before it is measured
floor_port=$((nginx_port + 2000))
curl -fsi "$url" -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" -o "$tmp/304.http"
${on_server_core[@]+"${on_server_core[@]}"} "$bin/RiversNIOFloor" "$tmp/304.http" "$floor_port" 1 &
floor_pid=$!
floor_url="http://127.0.0.1:$floor_port/rivers/bench/rivers.json"
for _ in $(seq 50); do curl -fs "$floor_url" -o /dev/null && break; sleep 0.1; done

size=$(stat -c %s "$tmp/rivers.json"); gz=$(stat -c %s "$tmp/www/rivers/bench/rivers.json.gz")
ROUNDS=${BENCH_ROUNDS:-3}
echo "== 2. serving a ${size}-byte document (${gz} bytes gzip), wrk 1 thread × ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION}s per figure"
echo "   one nginx worker and one rivers event loop; ${placement} (${cores} cores)"
wrk_rps() { ${on_client_cores[@]+"${on_client_cores[@]}"} wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "$@" | awk '/Requests\/sec/{print $2}'; }
ab_rps() { ${on_client_cores[@]+"${on_client_cores[@]}"} ab -q -k -c"$CONNECTIONS" -t"$DURATION" -n 100000000 "$@" 2>/dev/null | awk '/Requests per second/{print $4}'; }
ratio() { echo "$1 / $2" | bc -l; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The server's CPU time per request, beside requests per second: the time a server spends on
# each answer, which a neighbour taking the core away does not change (it lowers the rate), so
# its ratio swings less between rounds. Every server here is the bottleneck (each runs its core
# at about 100% under wrk), so the two ratios tell the same thing when the machine is quiet.
hz=$(getconf CLK_TCK)
nginx_worker=$(pgrep -P "$(cat "$tmp/nginx.pid")" | head -1)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # utime + stime, every thread
# measure PID TOOL ARGS...: runs TOOL (it prints requests per second) and sets m_rps and m_us,
# the CPU microseconds process PID spent per request meanwhile.
measure() {
  local pid=$1 before after; shift
  before=$(cpu_ticks "$pid"); m_rps=$("$@"); after=$(cpu_ticks "$pid")
  m_us=$(echo "($after - $before) * 1000000 / $hz / ($m_rps * $DURATION)" | bc -l)
}
# report LABEL: the figure from the rounds in rs/ns (requests per second) and rc/nc (CPU µs per
# request) of rivers and of nginx: medians, the median of the rounds' ratios (nginx's CPU per
# request ÷ ours, so that 1 means as fast) and each round's ratio.
report() {
  local qs=() cs=() i
  for i in "${!rs[@]}"; do qs+=("$(ratio "${rs[$i]}" "${ns[$i]}")"); cs+=("$(ratio "${nc[$i]}" "${rc[$i]}")"); done
  printf "%-22s %12s %12s %8.2f   (rounds: %s)\n" "$1" "$(median "${rs[@]}")" "$(median "${ns[@]}")" "$(median "${qs[@]}")" "$(printf '%.2f ' "${qs[@]}")"
  printf "%-22s %12.2f %12.2f %8.2f   (rounds: %s)\n" "  CPU µs per request" "$(median "${rc[@]}")" "$(median "${nc[@]}")" "$(median "${cs[@]}")" "$(printf '%.2f ' "${cs[@]}")"
  last_rivers=$(median "${rs[@]}")
  last_nginx=$(median "${ns[@]}")
}
# One figure: ROUNDS rounds, each measuring rivers and nginx back to back (a noisy neighbour then
# hurts both alike), rivers first in odd rounds and nginx first in even ones (whatever being
# measured first or second does, such as following another phase, falls on both alike).
compare() {
  local label=$1 tool=$2 ours=$3 theirs=$4 round; shift 4
  rs=(); ns=(); rc=(); nc=()
  for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) = 0 ]; then measure "$nginx_worker" "$tool" "$@" $theirs; ns+=("$m_rps"); nc+=("$m_us"); fi
    measure "$server_pid" "$tool" "$@" $ours; rs+=("$m_rps"); rc+=("$m_us")
    if [ $((round % 2)) = 1 ]; then measure "$nginx_worker" "$tool" "$@" $theirs; ns+=("$m_rps"); nc+=("$m_us"); fi
  done
  report "$label"
}
printf "%-22s %12s %12s %8s\n" "" "rivers r/s" "nginx r/s" "ratio"
compare "gzip 200" wrk_rps "$url" "$nginx_url" -H 'Accept-Encoding: gzip'; r_gzip=$last_rivers; n_gzip=$last_nginx
compare "  nginx + our fields" wrk_rps "$url" "$fields_url" -H 'Accept-Encoding: gzip' 
# The 304 needs each server's own ETag: one compare per server would not pair the rounds.
rs=(); ns=(); rc=(); nc=(); fs=(); fc=(); gs=(); gc=()
# The four in turn, each round starting with the next one (as `compare` alternates two).
for round in $(seq "$ROUNDS"); do
  for k in 0 1 2 3; do
    case $(((round + k) % 4)) in
      1) measure "$server_pid" wrk_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" "$url"; rs+=("$m_rps"); rc+=("$m_us") ;;
      2) measure "$nginx_worker" wrk_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" "$nginx_url"; ns+=("$m_rps"); nc+=("$m_us") ;;
      3) measure "$nginx_worker" wrk_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" "$fields_url"; gs+=("$m_rps"); gc+=("$m_us") ;;
      0) measure "$floor_pid" wrk_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" "$floor_url"; fs+=("$m_rps"); fc+=("$m_us") ;;
    esac
  done
done
report "304 (If-None-Match)"; r_304=$last_rivers; n_304=$last_nginx
bare_ns=("${ns[@]}"); bare_nc=("${nc[@]}")
ns=("${gs[@]}"); nc=("${gc[@]}")
report "  nginx + our fields"
# The floor against nginx's own answer, as before the fields were added.
rs=("${fs[@]}"); rc=("${fc[@]}"); ns=("${bare_ns[@]}"); nc=("${bare_nc[@]}")
report "SwiftNIO floor, 304"
# Mixed connections (a pooled proxy connection carries API calls too): the first request on each
# connection is GET /health (nginx answers its 404 page), every later one the document, gzip 200
# and 304. The figure to compare is ours mixed against ours fresh (the same speed is the target).
cat >"$tmp/mixed.lua" <<'LUA'
local connections = 32
local n = 0
init = function(args) connections = tonumber(args[1]) or connections end
request = function()
  n = n + 1
  if n <= connections then return wrk.format("GET", "/health") end
  return wrk.format(nil, nil)
end
LUA
mixed_rps() { ${on_client_cores[@]+"${on_client_cores[@]}"} wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$tmp/mixed.lua" "$@" -- "$CONNECTIONS" | awk '/Requests\/sec/{print $2}'; }
r_fresh_gzip=$r_gzip
compare "gzip 200, mixed" mixed_rps "$url" "$nginx_url" -H 'Accept-Encoding: gzip'; r_mixed_gzip=$last_rivers; n_mixed_gzip=$last_nginx
rs=(); ns=(); rc=(); nc=()
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 0 ]; then measure "$nginx_worker" mixed_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" "$nginx_url"; ns+=("$m_rps"); nc+=("$m_us"); fi
  measure "$server_pid" mixed_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" "$url"; rs+=("$m_rps"); rc+=("$m_us")
  if [ $((round % 2)) = 1 ]; then measure "$nginx_worker" mixed_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" "$nginx_url"; ns+=("$m_rps"); nc+=("$m_us"); fi
done
report "304, mixed"; r_mixed_304=$last_rivers; n_mixed_304=$last_nginx
# The mixed runs' client is scripted (a Lua call and a request formatted for every request), which
# slows it and changes how requests batch: nginx's own mixed ÷ fresh shows what that costs alone.
printf "ours: mixed ÷ fresh, gzip 200 %.2f, 304 %.2f; nginx's, with the same clients, %.2f and %.2f (target: ours as nginx's, within noise)\n" \
  "$(ratio "$r_mixed_gzip" "$r_fresh_gzip")" "$(ratio "$r_mixed_304" "$r_304")" "$(ratio "$n_mixed_gzip" "$n_gzip")" "$(ratio "$n_mixed_304" "$n_304")"
r_404=$(wrk_rps -H 'Accept-Encoding: gzip' "http://127.0.0.1:$app_port/rivers/no-such-app/rivers.json")
printf "%-22s %12s %12s\n" "404 unknown slug" "$r_404" "-"
printf "ours: 304 ÷ gzip 200 %.2f (target ≥ 1)\n" "$(ratio "$r_304" "$r_gzip")"
echo "target: gzip 200 and 304 ratios ≥ 0.9 of nginx, on fresh and on mixed connections (issue 26);"
echo "  \"nginx + our fields\" is nginx sending the same answer as ours, field for field"

echo "== 3. HEAD, ab × ${CONNECTIONS} keep-alive connections (HTTP/1.0 keep-alive), ${ROUNDS} rounds of ${DURATION}s"
printf "%-22s %12s %12s %8s\n" "" "rivers r/s" "nginx r/s" "ratio"
compare "HEAD" ab_rps "$url" "$nginx_url" -i -H 'Accept-Encoding: gzip'; r_head=$last_rivers
compare "  nginx + our fields" ab_rps "$url" "$fields_url" -i -H 'Accept-Encoding: gzip' 
rs=()
for _ in $(seq "$ROUNDS"); do rs+=("$(ab_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" "$url")"); done
r_ab304=$(median "${rs[@]}")
printf "%-22s %12s %12s\n" "304 (same client)" "$r_ab304" "-"
printf "ours: HEAD ÷ 304 %.2f (target ≥ 1, within noise)\n" "$(ratio "$r_head" "$r_ab304")"

echo "== 4. for information: defaults (nginx worker_processes auto, rivers one event loop per core), no pinning, 1 round each"
printf "%-22s %12s %12s %8s\n" "" "rivers r/s" "nginx r/s" "ratio"
free_wrk_rps() { wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "$@" | awk '/Requests\/sec/{print $2}'; }
r=$(free_wrk_rps -H 'Accept-Encoding: gzip' "$default_url"); n=$(free_wrk_rps -H 'Accept-Encoding: gzip' "$default_nginx_url")
printf "%-22s %12s %12s %8.2f\n" "gzip 200" "$r" "$n" "$(ratio "$r" "$n")"
r=$(free_wrk_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $etag" "$default_url")
n=$(free_wrk_rps -H 'Accept-Encoding: gzip' -H "If-None-Match: $nginx_etag" "$default_nginx_url")
printf "%-22s %12s %12s %8.2f\n" "304 (If-None-Match)" "$r" "$n" "$(ratio "$r" "$n")"
